// pickle.cpp - the restricted pickle machine and writer; see Note [Reading pickles safely].
#include "io/pickle.h"

#include <cstring>
#include <unordered_map>

#include "core/error.h"
#include "core/utf8.h"

namespace ct::io {
namespace {

constexpr const char* kFix = "The file is damaged or was not written by torch.save; save it again";

PickleRef make(PickleValue::Kind k) {
  auto v = std::make_shared<PickleValue>();
  v->kind = k;
  return v;
}

class Machine {
 public:
  Machine(const uint8_t* p, size_t n, PicklePolicy& policy, const std::string& context)
      : p_(p), n_(n), policy_(policy), context_(context) {}

  PickleRef run() {
    for (;;) {
      if (pos_ >= n_) fail(n_, "the pickle ends without its STOP opcode");
      op_at_ = pos_;
      const uint8_t op = p_[pos_++];
      switch (op) {
        case 0x80: take(1); break;          // PROTO
        case 0x95: take(8); break;          // FRAME: a length hint
        case '.': return stop();            // STOP
        case '(': marks_.push_back(stack_.size()); break;  // MARK
        case ')': push(make(PickleValue::Kind::Tuple)); break;
        case ']': push(make(PickleValue::Kind::List)); break;
        case '}': push(make(PickleValue::Kind::Dict)); break;
        case 'N': push(make(PickleValue::Kind::None)); break;
        case 0x88: push(boolean(true)); break;
        case 0x89: push(boolean(false)); break;
        case 'J': push(integer(static_cast<int32_t>(u32(take(4))))); break;  // BININT
        case 'K': push(integer(take(1)[0])); break;                           // BININT1
        case 'M': push(integer(u16(take(2)))); break;                         // BININT2
        case 0x8a: push(long_int(take(1)[0])); break;                         // LONG1
        case 0x8b: push(long_int(u32(take(4)))); break;                       // LONG4
        case 'G': push(real(take(8))); break;                                 // BINFLOAT
        case 'X': push(text(u32(take(4)), PickleValue::Kind::String)); break;      // BINUNICODE
        case 0x8c: push(text(take(1)[0], PickleValue::Kind::String)); break;       // SHORT_BINUNICODE
        case 0x8d: push(text(u64(take(8)), PickleValue::Kind::String)); break;     // BINUNICODE8
        case 'B': push(text(u32(take(4)), PickleValue::Kind::Bytes)); break;       // BINBYTES
        case 'C': push(text(take(1)[0], PickleValue::Kind::Bytes)); break;         // SHORT_BINBYTES
        case 'T': push(text(u32(take(4)), PickleValue::Kind::Bytes)); break;       // BINSTRING (py2 str)
        case 'U': push(text(take(1)[0], PickleValue::Kind::Bytes)); break;         // SHORT_BINSTRING
        case 't': push(tuple_of(pop_mark())); break;
        case 0x85: push(tuple_of(pop_n(1))); break;
        case 0x86: push(tuple_of(pop_n(2))); break;
        case 0x87: push(tuple_of(pop_n(3))); break;
        case 'l': {  // LIST
          auto v = make(PickleValue::Kind::List);
          v->items = pop_mark();
          push(v);
          break;
        }
        case 'd': {  // DICT
          auto v = make(PickleValue::Kind::Dict);
          set_items(v, pop_mark());
          push(v);
          break;
        }
        case 'a': {  // APPEND
          PickleRef x = pop();
          container(PickleValue::Kind::List, "APPEND")->items.push_back(std::move(x));
          break;
        }
        case 'e': {  // APPENDS
          std::vector<PickleRef> xs = pop_mark();
          auto& items = container(PickleValue::Kind::List, "APPENDS")->items;
          items.insert(items.end(), xs.begin(), xs.end());
          break;
        }
        case 's': {  // SETITEM
          PickleRef v = pop(), k = pop();
          set_items(container(PickleValue::Kind::Dict, "SETITEM"), {k, v});
          break;
        }
        case 'u': {  // SETITEMS
          std::vector<PickleRef> kv = pop_mark();
          set_items(container(PickleValue::Kind::Dict, "SETITEMS"), kv);
          break;
        }
        case 'c': {  // GLOBAL "module\nname\n"
          const std::string module = line(), name = line();
          push(policy_.global(module, name, op_at_));
          break;
        }
        case 0x93: {  // STACK_GLOBAL
          PickleRef name = pop(), module = pop();
          if (module->kind != PickleValue::Kind::String || name->kind != PickleValue::Kind::String)
            fail(op_at_, "STACK_GLOBAL needs a module and a name as strings");
          push(policy_.global(module->s, name->s, op_at_));
          break;
        }
        case 'R': {  // REDUCE
          PickleRef args = pop(), callable = pop();
          push(policy_.reduce(callable, args, op_at_));
          break;
        }
        case 'b': {  // BUILD
          PickleRef state = pop();
          policy_.build(top(), state, op_at_);
          break;
        }
        case 'Q': push(policy_.persistent(pop(), op_at_)); break;  // BINPERSID
        case 'q': memo_[take(1)[0]] = top(); break;                // BINPUT
        case 'r': memo_[u32(take(4))] = top(); break;              // LONG_BINPUT
        case 0x94: memo_[static_cast<uint32_t>(memo_.size())] = top(); break;  // MEMOIZE
        case 'h': push(memo(take(1)[0])); break;                   // BINGET
        case 'j': push(memo(u32(take(4)))); break;                 // LONG_BINGET
        case '0': pop(); break;                                    // POP
        case '1': pop_mark(); break;                               // POP_MARK
        case '2': push(top()); break;                              // DUP
        default:
          fail(op_at_, str("opcode 0x", "0123456789abcdef"[op >> 4], "0123456789abcdef"[op & 15],
                           " is not one a checkpoint's values use (a weights-only load refuses it)"));
      }
    }
  }

 private:
  [[noreturn]] void fail(size_t at, const std::string& what) const {
    ct::fail(CT_ERROR_FORMAT, str(context_, ": ", what, ", at byte ", at, " of the pickle. ", kFix));
  }
  const uint8_t* take(size_t k) {
    if (n_ - pos_ < k) fail(op_at_, "the pickle ends inside an opcode's argument");
    const uint8_t* at = p_ + pos_;
    pos_ += k;
    return at;
  }
  static uint16_t u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
  static uint32_t u32(const uint8_t* p) { return u16(p) | static_cast<uint32_t>(u16(p + 2)) << 16; }
  static uint64_t u64(const uint8_t* p) { return u32(p) | static_cast<uint64_t>(u32(p + 4)) << 32; }
  PickleRef boolean(bool v) {
    auto x = make(PickleValue::Kind::Bool);
    x->b = v;
    return x;
  }
  PickleRef integer(int64_t v) {
    auto x = make(PickleValue::Kind::Int);
    x->i = v;
    return x;
  }
  // A little-endian two's complement integer of k bytes; more than 64 bits is refused.
  PickleRef long_int(uint64_t k) {
    const uint8_t* b = take(k);
    if (k > 8) {
      const uint8_t fill = b[k - 1] & 0x80 ? 0xff : 0;
      for (uint64_t j = 8; j < k; ++j)
        if (b[j] != fill || (b[7] & 0x80) != (fill & 0x80)) fail(op_at_, "an integer does not fit in 64 bits");
      k = 8;
    }
    uint64_t v = 0;
    for (uint64_t j = 0; j < k; ++j) v |= uint64_t{b[j]} << (8 * j);
    if (k > 0 && k < 8 && (b[k - 1] & 0x80)) v |= ~uint64_t{0} << (8 * k);  // sign-extend
    return integer(static_cast<int64_t>(v));
  }
  PickleRef real(const uint8_t* b) {  // big-endian IEEE double
    uint64_t bits = 0;
    for (int j = 0; j < 8; ++j) bits = bits << 8 | b[j];
    auto x = make(PickleValue::Kind::Float);
    std::memcpy(&x->d, &bits, 8);
    return x;
  }
  PickleRef text(uint64_t len, PickleValue::Kind kind) {
    if (len > n_ - pos_) fail(op_at_, str("a string of ", len, " bytes runs past the end of the pickle"));
    auto x = make(kind);
    x->s.assign(reinterpret_cast<const char*>(take(static_cast<size_t>(len))), static_cast<size_t>(len));
    if (kind == PickleValue::Kind::String && !valid_utf8(x->s)) fail(op_at_, "a string is not valid UTF-8");
    return x;
  }
  std::string line() {
    const size_t start = pos_;
    while (pos_ < n_ && p_[pos_] != '\n') ++pos_;
    if (pos_ >= n_) fail(op_at_, "GLOBAL's names are not ended by a newline");
    return std::string(reinterpret_cast<const char*>(p_ + start), pos_++ - start);
  }
  void push(PickleRef v) { stack_.push_back(std::move(v)); }
  PickleRef pop() {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) fail(op_at_, "an opcode takes a value from an empty stack");
    PickleRef v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  const PickleRef& top() {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) fail(op_at_, "an opcode reads an empty stack");
    return stack_.back();
  }
  std::vector<PickleRef> pop_n(size_t k) {
    std::vector<PickleRef> v(k);
    for (size_t j = k; j-- > 0;) v[j] = pop();
    return v;
  }
  std::vector<PickleRef> pop_mark() {
    if (marks_.empty()) fail(op_at_, "an opcode needs a MARK, and there is none");
    const size_t m = marks_.back();
    marks_.pop_back();
    std::vector<PickleRef> v(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(m)),
                             std::make_move_iterator(stack_.end()));
    stack_.resize(m);
    return v;
  }
  PickleRef tuple_of(std::vector<PickleRef> items) {
    auto v = make(PickleValue::Kind::Tuple);
    v->items = std::move(items);
    return v;
  }
  PickleValue* container(PickleValue::Kind kind, const char* op) {
    PickleValue* c = top().get();
    if (c->kind != kind)
      fail(op_at_, str(op, " needs a ", kind == PickleValue::Kind::List ? "list" : "dict", " below its values"));
    return c;
  }
  void set_items(PickleValue* d, const std::vector<PickleRef>& kv) {
    if (kv.size() % 2) fail(op_at_, "a dict's items come in key, value pairs, and one value is missing");
    for (size_t j = 0; j < kv.size(); j += 2) {
      const PickleValue& k = *kv[j];
      if (k.kind != PickleValue::Kind::String && k.kind != PickleValue::Kind::Int)
        fail(op_at_, "a dict key is not a string or an integer (a weights-only load allows those)");
      // A repeated key replaces the value, as in Python; the index keeps that linear in the keys.
      auto& index = keys_[d];
      const std::string key = k.kind == PickleValue::Kind::String ? "s" + k.s : "i" + std::to_string(k.i);
      auto [it, fresh] = index.emplace(key, d->pairs.size());
      if (fresh) d->pairs.emplace_back(kv[j], kv[j + 1]);
      else d->pairs[it->second].second = kv[j + 1];
    }
  }
  void set_items(const PickleRef& d, const std::vector<PickleRef>& kv) { set_items(d.get(), kv); }
  PickleRef memo(uint32_t key) {
    auto it = memo_.find(key);
    if (it == memo_.end()) fail(op_at_, str("memo entry ", key, " is read before it is written"));
    return it->second;
  }
  PickleRef stop() {
    if (!marks_.empty() || stack_.size() != 1)
      fail(op_at_, str("STOP leaves ", stack_.size(), " values and ", marks_.size(), " marks, not one value"));
    return stack_.back();
  }

  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0, op_at_ = 0;
  PicklePolicy& policy_;
  const std::string& context_;
  std::vector<PickleRef> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint32_t, PickleRef> memo_;
  std::unordered_map<const PickleValue*, std::unordered_map<std::string, size_t>> keys_;  // per dict
};

}  // namespace

PickleRef read_pickle(const uint8_t* bytes, size_t n, PicklePolicy& policy, const std::string& context) {
  return Machine(bytes, n, policy, context).run();
}

PickleWriter::PickleWriter() { out_ = "\x80\x02"; }

void PickleWriter::none() { out_ += 'N'; }
void PickleWriter::boolean(bool v) { out_ += v ? '\x88' : '\x89'; }

void PickleWriter::integer(int64_t v) {
  if (v >= 0 && v < 256) {
    out_ += 'K';
    out_ += static_cast<char>(v);
  } else if (v >= 0 && v < 65536) {
    out_ += 'M';
    out_ += static_cast<char>(v), out_ += static_cast<char>(v >> 8);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    out_ += 'J';
    for (int j = 0; j < 4; ++j) out_ += static_cast<char>(static_cast<uint32_t>(v) >> (8 * j));
  } else {  // LONG1 with 8 bytes: two's complement, which always holds an int64
    out_ += '\x8a';
    out_ += '\x08';
    for (int j = 0; j < 8; ++j) out_ += static_cast<char>(static_cast<uint64_t>(v) >> (8 * j));
  }
}

void PickleWriter::real(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  out_ += 'G';
  for (int j = 7; j >= 0; --j) out_ += static_cast<char>(bits >> (8 * j));
}

void PickleWriter::string(const std::string& utf8) {
  out_ += 'X';
  const uint32_t n = static_cast<uint32_t>(utf8.size());
  for (int j = 0; j < 4; ++j) out_ += static_cast<char>(n >> (8 * j));
  out_ += utf8;
}

void PickleWriter::global(const std::string& module, const std::string& name) {
  out_ += 'c';
  out_ += module;
  out_ += '\n';
  out_ += name;
  out_ += '\n';
}

void PickleWriter::mark() { out_ += '('; }
void PickleWriter::empty_list() { out_ += ']'; }
void PickleWriter::empty_dict() { out_ += '}'; }
void PickleWriter::empty_tuple() { out_ += ')'; }
void PickleWriter::appends() { out_ += 'e'; }
void PickleWriter::setitems() { out_ += 'u'; }
void PickleWriter::tuple() { out_ += 't'; }
void PickleWriter::reduce() { out_ += 'R'; }
void PickleWriter::binpersid() { out_ += 'Q'; }

void PickleWriter::put(uint32_t memo) {
  out_ += 'r';
  for (int j = 0; j < 4; ++j) out_ += static_cast<char>(memo >> (8 * j));
}

void PickleWriter::get(uint32_t memo) {
  out_ += 'j';
  for (int j = 0; j < 4; ++j) out_ += static_cast<char>(memo >> (8 * j));
}

std::string PickleWriter::finish() {
  out_ += '.';
  return std::move(out_);
}

}  // namespace ct::io
