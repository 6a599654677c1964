// pickle.h - Python's pickle format, restricted to the values a checkpoint holds.
//
// Note [Reading pickles safely]
// A pickle is a program for a stack machine, and Python's own unpickler runs whatever it names
// (any importable callable): loading a checkpoint from an untrusted source is the same as running
// its code, which is why torch.load(weights_only=True) exists. read_pickle() runs the same
// programs but knows no callables: every GLOBAL, REDUCE, BUILD and persistent id goes to the
// caller's policy, which builds the few objects it allows (for PyTorch files, tensors and
// OrderedDicts; io/torch_file.cpp) and refuses the rest with CT_ERROR_FORMAT naming the global.
// The machine allocates O(1) per opcode, so memory is bounded by the input's length; values form a
// tree built bottom-up, and a container reached twice (shared or cyclic: torch never writes one)
// is refused where the caller walks it. Every failure names the opcode's byte offset.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ct::io {

struct PickleValue;
using PickleRef = std::shared_ptr<PickleValue>;

struct PickleValue {
  enum class Kind { None, Bool, Int, Float, String, Bytes, List, Tuple, Dict, Global, Object };
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;
  double d = 0;
  std::string s;                                       // String, Bytes; Global: "module.name"
  std::vector<PickleRef> items;                        // List, Tuple
  std::vector<std::pair<PickleRef, PickleRef>> pairs;  // Dict (insertion order)
  bool ordered = false;                                // Dict: an OrderedDict
  int64_t object = -1;                                 // Object: what the policy made (its index)
};

/// What the caller allows a pickle to make; each call may refuse with CT_ERROR_FORMAT (at is the
/// opcode's byte offset, for the message).
class PicklePolicy {
 public:
  virtual ~PicklePolicy() = default;
  virtual PickleRef global(const std::string& module, const std::string& name, size_t at) = 0;
  virtual PickleRef reduce(const PickleRef& callable, const PickleRef& args, size_t at) = 0;
  virtual PickleRef persistent(const PickleRef& pid, size_t at) = 0;
  /// BUILD: sets state on obj (an object's attributes).
  virtual void build(const PickleRef& obj, const PickleRef& state, size_t at) = 0;
};

/// Runs the pickle in bytes[0, n) (protocols 0 to 5, the opcodes of values and containers) and
/// returns the value it leaves; CT_ERROR_FORMAT "<context>: <what>, at byte <offset>" otherwise.
PickleRef read_pickle(const uint8_t* bytes, size_t n, PicklePolicy& policy, const std::string& context);

/// Builds a protocol-2 pickle, as torch.save writes it; the caller emits values in order.
class PickleWriter {
 public:
  PickleWriter();
  void none();
  void boolean(bool v);
  void integer(int64_t v);
  void real(double v);
  void string(const std::string& utf8);
  void global(const std::string& module, const std::string& name);
  void mark();
  void empty_list();
  void empty_dict();
  void empty_tuple();
  void appends();   // the items since the last mark onto the list below it
  void setitems();  // the key, value pairs since the last mark into the dict below it
  void tuple();     // the items since the last mark as a tuple
  void reduce();    // callable(*args): both on the stack
  void binpersid();
  void put(uint32_t memo);  // remembers the value on top of the stack
  void get(uint32_t memo);  // pushes a remembered value again (the same object when loaded)
  /// The finished pickle (STOP appended).
  std::string finish();

 private:
  std::string out_;
};

}  // namespace ct::io
