package org.ctorch;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A checkpoint's "__metadata__" between Java maps and the JSON text the C API takes and gives: an
 * object of string values. Writing escapes every character outside printable ASCII, so the text
 * passes through JNI's modified UTF-8 unchanged; reading accepts the compact JSON the library
 * returns (it validated the object when the file was opened).
 */
final class MetadataJson {
  private MetadataJson() {}

  /** The JSON object of metadata, or null for null. */
  static String write(Map<String, String> metadata) {
    if (metadata == null) {
      return null;
    }
    StringBuilder b = new StringBuilder("{");
    for (Map.Entry<String, String> e : metadata.entrySet()) {
      if (e.getKey() == null || e.getValue() == null) {
        throw new InvalidArgumentException("Checkpoint.save: metadata keys and values must not be null");
      }
      if (b.length() > 1) {
        b.append(',');
      }
      quote(b, e.getKey());
      b.append(':');
      quote(b, e.getValue());
    }
    return b.append('}').toString();
  }

  static void quote(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c >= 0x20 && c < 0x7f) {
        b.append(c);
      } else {
        b.append(String.format("\\u%04x", (int) c)); // surrogate pairs stay pairs of escapes
      }
    }
    b.append('"');
  }

  /** The map of a JSON object of strings ("null" gives an empty map). */
  static Map<String, String> read(String json) {
    Map<String, String> out = new LinkedHashMap<>();
    if (json.equals("null")) {
      return Collections.unmodifiableMap(out);
    }
    int[] pos = {0};
    expect(json, pos, '{');
    if (json.charAt(pos[0]) != '}') {
      while (true) {
        String key = string(json, pos);
        expect(json, pos, ':');
        out.put(key, string(json, pos));
        if (json.charAt(pos[0]) == ',') {
          pos[0]++;
        } else {
          break;
        }
      }
    }
    expect(json, pos, '}');
    return Collections.unmodifiableMap(out);
  }

  private static void expect(String json, int[] pos, char c) {
    if (pos[0] >= json.length() || json.charAt(pos[0]) != c) {
      throw new InternalException("checkpoint metadata: expected '" + c + "' at " + pos[0] + " of " + json);
    }
    pos[0]++;
  }

  private static String string(String json, int[] pos) {
    expect(json, pos, '"');
    StringBuilder b = new StringBuilder();
    while (true) {
      char c = json.charAt(pos[0]++);
      if (c == '"') {
        return b.toString();
      }
      if (c != '\\') {
        b.append(c);
        continue;
      }
      char e = json.charAt(pos[0]++);
      switch (e) {
        case 'b': b.append('\b'); break;
        case 'f': b.append('\f'); break;
        case 'n': b.append('\n'); break;
        case 'r': b.append('\r'); break;
        case 't': b.append('\t'); break;
        case 'u':
          b.append((char) Integer.parseInt(json.substring(pos[0], pos[0] + 4), 16));
          pos[0] += 4;
          break;
        default: b.append(e); // '"', '\\', '/'
      }
    }
  }
}
