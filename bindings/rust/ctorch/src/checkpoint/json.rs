//! The one JSON shape checkpoints use for metadata: an object of string values. Writing escapes
//! as RFC 8259 requires; reading takes what `ct_checkpoint_metadata_json` gives (the library has
//! validated it) and refuses anything else with a `Format` error.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::error::{Error, ErrorKind, Result};

pub(crate) fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `{"key":"value",...}` in the given order.
pub(crate) fn object_of_strings(entries: &[(&str, &str)]) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in entries.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(&mut out, k);
        out.push(':');
        write_string(&mut out, v);
    }
    out.push('}');
    out
}

struct Reader<'a> {
    text: &'a str,
    pos: usize,
}

impl Reader<'_> {
    fn error(&self, what: &str) -> Error {
        Error::new(ErrorKind::Format, format!("checkpoint metadata: {what} at byte {} of {:?}", self.pos, self.text))
    }

    fn skip_ws(&mut self) {
        while self.text[self.pos..].starts_with([' ', '\t', '\n', '\r']) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_ws();
        let found = self.text[self.pos..].starts_with(c);
        if found {
            self.pos += 1;
        }
        found
    }

    fn hex4(&mut self) -> Result<u32> {
        let digits = self.text.get(self.pos..self.pos + 4).ok_or_else(|| self.error("a truncated \\u escape"))?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(self.error("a bad \\u escape"));
        }
        let v = u32::from_str_radix(digits, 16).map_err(|_| self.error("a bad \\u escape"))?;
        self.pos += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String> {
        if !self.eat('"') {
            return Err(self.error("expected a string"));
        }
        let mut out = String::new();
        loop {
            let c = self.text[self.pos..].chars().next().ok_or_else(|| self.error("an unterminated string"))?;
            self.pos += c.len_utf8();
            match c {
                '"' => return Ok(out),
                '\\' => {
                    let e = self.text[self.pos..].chars().next().ok_or_else(|| self.error("a truncated escape"))?;
                    self.pos += 1;
                    match e {
                        '"' | '\\' | '/' => out.push(e),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        'n' => out.push('\n'),
                        'r' => out.push('\r'),
                        't' => out.push('\t'),
                        'u' => {
                            let mut code = self.hex4()?;
                            if (0xD800..0xDC00).contains(&code) && self.text[self.pos..].starts_with("\\u") {
                                self.pos += 2;
                                let low = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&low) {
                                    return Err(self.error("a lone surrogate"));
                                }
                                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                            }
                            out.push(char::from_u32(code).ok_or_else(|| self.error("a lone surrogate"))?);
                        }
                        _ => return Err(self.error("an unknown escape")),
                    }
                }
                c => out.push(c),
            }
        }
    }
}

/// Parses `null` (as `None`) or an object whose values are strings.
pub(crate) fn parse_object_of_strings(text: &str) -> Result<Option<BTreeMap<String, String>>> {
    let mut r = Reader { text, pos: 0 };
    r.skip_ws();
    if r.text[r.pos..].trim_end() == "null" {
        return Ok(None);
    }
    if !r.eat('{') {
        return Err(r.error("expected an object"));
    }
    let mut map = BTreeMap::new();
    if !r.eat('}') {
        loop {
            let key = r.string()?;
            if !r.eat(':') {
                return Err(r.error("expected ':'"));
            }
            let value = r.string()?;
            map.insert(key, value);
            if r.eat('}') {
                break;
            }
            if !r.eat(',') {
                return Err(r.error("expected ',' or '}'"));
            }
        }
    }
    r.skip_ws();
    if r.pos != r.text.len() {
        return Err(r.error("trailing text"));
    }
    Ok(Some(map))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_round_trip() {
        let entries = [("a\"b", "line\nnext\\ \u{1} é 😀"), ("", "")];
        let text = object_of_strings(&entries);
        let map = parse_object_of_strings(&text).unwrap().unwrap();
        assert_eq!(map.len(), 2);
        assert_eq!(map["a\"b"], entries[0].1);
        assert_eq!(map[""], "");
    }

    #[test]
    fn surrogate_pairs_and_null() {
        let map = parse_object_of_strings(r#" { "k" : "\ud83d\ude00\u00e9\/" } "#).unwrap().unwrap();
        assert_eq!(map["k"], "😀é/");
        assert_eq!(parse_object_of_strings("null").unwrap(), None);
    }

    #[test]
    fn malformed_text_is_a_format_error() {
        for bad in ["{", "{\"a\":1}", "{\"a\":\"b\"} x", "[]", "{\"a\" \"b\"}", "{\"\\ud800\":\"\"}"] {
            assert_eq!(parse_object_of_strings(bad).unwrap_err().kind(), ErrorKind::Format, "{bad}");
        }
    }
}
