// torch_file.cpp - see Note [A PyTorch file's structure].
#include "io/torch_file.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "autograd/meta.h"
#include "core/tensor_impl.h"
#include "dispatch/grad_mode.h"
#include "io/json_reader.h"
#include "io/pickle.h"
#include "io/zip_archive.h"
#include "ops/functions.h"
#include "io/safetensors_header.h"  // append_json_string

// Storages are written and read as they lie in memory; the files are little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "PyTorch files are read and written little-endian");

namespace ct::io {
namespace {

constexpr const char* kAllowed = "a weights-only load makes tensors, OrderedDicts and plain values only";
constexpr int kMaxDepth = 200;
constexpr size_t kMaxDims = 64;

// torch's typed storage classes, by the dtype of their elements.
struct StorageType {
  const char* name;
  DType dtype;
};
constexpr StorageType kStorageTypes[] = {
    {"FloatStorage", DType::Float32}, {"DoubleStorage", DType::Float64}, {"HalfStorage", DType::Float16},
    {"BFloat16Storage", DType::BFloat16}, {"LongStorage", DType::Int64}, {"IntStorage", DType::Int32},
    {"ShortStorage", DType::Int16}, {"CharStorage", DType::Int8}, {"ByteStorage", DType::UInt8},
    {"BoolStorage", DType::Bool}, {"ComplexFloatStorage", DType::Complex64},
    {"ComplexDoubleStorage", DType::Complex128},
};

const StorageType* storage_type(const std::string& global) {
  for (const StorageType& t : kStorageTypes)
    if (global == str("torch.", t.name)) return &t;
  return nullptr;
}

const char* storage_type_name(DType d) {
  for (const StorageType& t : kStorageTypes)
    if (t.dtype == d) return t.name;
  fail(CT_ERROR_INTERNAL, str("torch file: no storage type for ", d));
}

using Kind = PickleValue::Kind;

PickleRef object(const char* what, size_t index) {
  auto v = std::make_shared<PickleValue>();
  v->kind = Kind::Object;
  v->s = what;
  v->object = static_cast<int64_t>(index);
  return v;
}

// ---- Loading

class Loader : public PicklePolicy {
 public:
  Loader(const uint8_t* bytes, const std::vector<ZipEntry>& entries, std::string prefix, const std::string& context)
      : bytes_(bytes), prefix_(std::move(prefix)), context_(context) {
    for (const ZipEntry& e : entries) entries_.emplace(e.name, &e);
  }

  PickleRef global(const std::string& module, const std::string& name, size_t at) override {
    const std::string full = module + "." + name;
    if (full != "collections.OrderedDict" && full != "torch._utils._rebuild_tensor_v2" &&
        full != "torch._utils._rebuild_parameter" && full != "torch._utils._rebuild_parameter_with_state" &&
        !storage_type(full))
      fail(at, str("the pickle names '", full, "', which is not allowed: ", kAllowed));
    auto v = std::make_shared<PickleValue>();
    v->kind = Kind::Global;
    v->s = full;
    return v;
  }

  PickleRef persistent(const PickleRef& pid, size_t at) override {
    const auto& f = pid->items;
    if (pid->kind != Kind::Tuple || f.size() != 5 || f[0]->kind != Kind::String || f[0]->s != "storage" ||
        f[1]->kind != Kind::Global || f[2]->kind != Kind::String || f[3]->kind != Kind::String || f[4]->kind != Kind::Int)
      fail(at, "a persistent id is not ('storage', type, key, location, numel)");
    const StorageType* type = storage_type(f[1]->s);
    if (!type) fail(at, str("a storage has the type '", f[1]->s, "'"));
    const std::string& key = f[2]->s;
    auto known = storage_index_.find(key);
    if (known != storage_index_.end()) {
      if (storages_[known->second]->dtype() != type->dtype)
        fail(at, str("storage '", key, "' is read as ", type->dtype, " and as ", storages_[known->second]->dtype()));
      return object("storage", known->second);
    }
    const int64_t numel = f[4]->i;
    const size_t item = itemsize(type->dtype);
    if (numel < 0 || static_cast<uint64_t>(numel) > UINT64_MAX / item)
      fail(at, str("storage '", key, "' has ", numel, " elements"));
    auto e = entries_.find(prefix_ + "data/" + key);
    if (e == entries_.end()) fail(at, str("storage '", key, "' has no record '", prefix_, "data/", key, "' in the archive"));
    const uint64_t need = static_cast<uint64_t>(numel) * item;
    if (e->second->size < need)
      fail(at, str("storage '", key, "' needs ", need, " bytes (", numel, " x ", type->dtype, ") and its record holds ",
                   e->second->size));
    Tensor s = Tensor::adopt(TensorImpl::empty({numel}, type->dtype, kCPU));
    if (need) std::memcpy(s->data(), bytes_ + e->second->offset, static_cast<size_t>(need));
    if (type->dtype == DType::Bool)
      for (uint64_t j = 0; j < need; ++j)
        if (s->data_as<uint8_t>()[j] > 1) fail(at, str("bool storage '", key, "' holds the byte ", int{s->data_as<uint8_t>()[j]}));
    storage_index_.emplace(key, storages_.size());
    storages_.push_back(std::move(s));
    return object("storage", storages_.size() - 1);
  }

  PickleRef reduce(const PickleRef& callable, const PickleRef& args, size_t at) override {
    if (callable->kind != Kind::Global) fail(at, "REDUCE calls something that is not a named function");
    if (args->kind != Kind::Tuple) fail(at, str(callable->s, " is called with arguments that are not a tuple"));
    const auto& a = args->items;
    if (callable->s == "collections.OrderedDict") {
      if (!a.empty()) fail(at, "OrderedDict is called with arguments (torch.save passes none)");
      auto d = std::make_shared<PickleValue>();
      d->kind = Kind::Dict;
      d->ordered = true;
      return d;
    }
    if (callable->s == "torch._utils._rebuild_tensor_v2") return rebuild_tensor(a, at);
    if (callable->s == "torch._utils._rebuild_parameter" || callable->s == "torch._utils._rebuild_parameter_with_state") {
      if (a.size() < 3 || !is_object(a[0], "tensor") || a[1]->kind != Kind::Bool)
        fail(at, str(callable->s, " needs (tensor, requires_grad, hooks)"));
      if (a[1]->b) require_grad(tensors_[static_cast<size_t>(a[0]->object)], at);
      return a[0];
    }
    fail(at, str("the pickle calls '", callable->s, "', which is not allowed: ", kAllowed));
  }

  void build(const PickleRef& obj, const PickleRef& state, size_t at) override {
    // An OrderedDict's attributes (a state dict's _metadata) and a tensor's Python attributes are
    // state torch.load sets on Python objects: there are none to set here, so they are read past.
    if ((obj->kind == Kind::Dict && obj->ordered) || is_object(obj, "tensor")) return;
    fail(at, "BUILD sets state on a value that is not an OrderedDict or a tensor");
  }

  std::string json_of(const PickleRef& root) {
    std::string out, path;
    emit(root, out, 0, path);
    return out;
  }

  std::vector<Tensor> take_tensors_in_use() { return std::move(used_); }
  std::vector<std::string> take_names() { return std::move(names_); }

 private:
  [[noreturn]] void fail(size_t at, const std::string& what) const {
    ct::fail(CT_ERROR_FORMAT, str(context_, ": ", what, ", at byte ", at, " of the pickle. ", kAdvice));
  }
  // A failure of the object the pickle built, which has no one byte to blame.
  [[noreturn]] void fail_object(const std::string& what) const {
    ct::fail(CT_ERROR_FORMAT, str(context_, ": ", what, ". ", kAdvice));
  }
  static constexpr const char* kAdvice =
      "Save it again with torch.save, or load it with torch.load where its code can run";
  static bool is_object(const PickleRef& v, const char* what) { return v->kind == Kind::Object && v->s == what; }
  static bool int_tuple(const PickleRef& v, std::vector<int64_t>* out) {
    if (v->kind != Kind::Tuple || v->items.size() > kMaxDims) return false;
    for (const PickleRef& x : v->items) {
      if (x->kind != Kind::Int) return false;
      out->push_back(x->i);
    }
    return true;
  }
  void require_grad(const Tensor& t, size_t at) {
    if (!is_differentiable(t->dtype())) fail(at, str("a ", t->dtype(), " tensor is saved as requiring grad"));
    autograd::set_requires_grad(*t, true, context_.c_str());
  }

  // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
  PickleRef rebuild_tensor(const std::vector<PickleRef>& a, size_t at) {
    std::vector<int64_t> sizes, strides;
    if (a.size() < 6 || !is_object(a[0], "storage") || a[1]->kind != Kind::Int || !int_tuple(a[2], &sizes) ||
        !int_tuple(a[3], &strides) || a[4]->kind != Kind::Bool || sizes.size() != strides.size())
      fail(at, "_rebuild_tensor_v2 needs (storage, offset, sizes, strides, requires_grad, hooks) with as many "
               "strides as sizes");
    if (a[5]->kind != Kind::Dict || !a[5]->pairs.empty()) fail(at, "a tensor is saved with backward hooks");
    const Tensor& s = storages_[static_cast<size_t>(a[0]->object)];
    const int64_t offset = a[1]->i;
    // In bounds: offset + sum((size - 1) * stride) < the storage's elements, computed without overflow.
    bool empty = false;
    for (int64_t v : sizes) empty |= v == 0;
    unsigned __int128 last = offset < 0 ? 0 : static_cast<uint64_t>(offset);
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] < 0 || strides[d] < 0) fail(at, str("a tensor has a negative size or stride: sizes ", IntArrayRef(sizes),
                                                     ", strides ", IntArrayRef(strides)));
      if (sizes[d] > 0) last += static_cast<unsigned __int128>(sizes[d] - 1) * static_cast<uint64_t>(strides[d]);
    }
    if (offset < 0 || (!empty && last >= static_cast<unsigned __int128>(s->numel())) || offset > s->numel())
      fail(at, str("a tensor (sizes ", IntArrayRef(sizes), ", strides ", IntArrayRef(strides), ", offset ", offset,
                   ") reaches past its storage of ", s->numel(), " elements"));
    tensors_.push_back(Tensor::adopt(TensorImpl::view_of(*s, sizes, strides, offset)));
    if (a[4]->b) require_grad(tensors_.back(), at);
    return object("tensor", tensors_.size() - 1);
  }

  // path: the keys and positions from the root to v, '.'-joined (TorchFile::names).
  void emit(const PickleRef& v, std::string& out, int depth, std::string& path) {
    if (depth > kMaxDepth) fail_object(str("the saved object nests more than ", kMaxDepth, " deep"));
    const bool container = v->kind == Kind::List || v->kind == Kind::Tuple || v->kind == Kind::Dict;
    if (container && !seen_.insert(v.get()).second)
      fail_object("a list, tuple or dict appears twice in the saved object (shared or cyclic), which ctorch does not load");
    switch (v->kind) {
      case Kind::None: out += "null"; return;
      case Kind::Bool: out += v->b ? "true" : "false"; return;
      case Kind::Int: out += std::to_string(v->i); return;
      case Kind::Float: {
        if (std::isnan(v->d)) out += "{\"float\":\"nan\"}";
        else if (std::isinf(v->d)) out += v->d > 0 ? "{\"float\":\"inf\"}" : "{\"float\":\"-inf\"}";
        else {
          char buf[40];
          std::snprintf(buf, sizeof buf, "%.17g", v->d);
          out += buf;
          if (!std::strpbrk(buf, ".eE")) out += ".0";
        }
        return;
      }
      case Kind::String: append_json_string(out, v->s); return;
      case Kind::List:
      case Kind::Tuple: {
        if (v->kind == Kind::Tuple) out += "{\"tuple\":";
        out += '[';
        for (size_t j = 0; j < v->items.size(); ++j) {
          if (j) out += ',';
          const size_t len = path.size();
          path += (len ? "." : "") + std::to_string(j);
          emit(v->items[j], out, depth + 1, path);
          path.resize(len);
        }
        out += ']';
        if (v->kind == Kind::Tuple) out += '}';
        return;
      }
      case Kind::Dict: {
        out += v->ordered ? "{\"ordered_dict\":[" : "{\"dict\":[";
        for (size_t j = 0; j < v->pairs.size(); ++j) {
          if (j) out += ',';
          out += '[';
          const PickleValue& key = *v->pairs[j].first;
          emit(v->pairs[j].first, out, depth + 1, path);
          out += ',';
          const size_t len = path.size();
          path += (len ? "." : "") + (key.kind == Kind::String ? key.s : std::to_string(key.i));
          emit(v->pairs[j].second, out, depth + 1, path);
          path.resize(len);
          out += ']';
        }
        out += "]}";
        return;
      }
      case Kind::Object:
        if (v->s == "tensor") {
          auto [it, fresh] = used_index_.emplace(v->object, used_.size());
          if (fresh) {
            used_.push_back(tensors_[static_cast<size_t>(v->object)]);
            names_.push_back(path);
          }
          out += str("{\"tensor\":", it->second, "}");
          return;
        }
        fail_object("a storage is saved by itself, not as a tensor's");
      case Kind::Bytes: fail_object("the saved object holds bytes, which ctorch does not load");
      case Kind::Global: fail_object(str("the saved object holds '", v->s, "' itself, not a value it made"));
    }
  }

  const uint8_t* bytes_;
  std::unordered_map<std::string, const ZipEntry*> entries_;
  std::string prefix_;
  const std::string& context_;
  std::vector<Tensor> storages_;
  std::unordered_map<std::string, size_t> storage_index_;
  std::vector<Tensor> tensors_;  // every tensor the pickle made, in order
  std::vector<Tensor> used_;     // those the object holds, in order of first use
  std::vector<std::string> names_;  // where each of used_ is first met
  std::unordered_map<int64_t, size_t> used_index_;
  std::unordered_set<const PickleValue*> seen_;
};

// ---- Writing

constexpr const char* kStructureFix =
    "Pass the structure as ctorch's JSON for a saved object (Note [A PyTorch file's structure], docs/checkpoints.md)";

// One storage to write: a CPU tensor whose storage bytes go to "archive/data/<key>".
struct SavedStorage {
  const StorageImpl* impl;  // for sharing; null for a host copy of a device tensor
  Tensor owner;             // keeps the bytes alive, and their dtype
  size_t nbytes;
};

class Writer {
 public:
  Writer(const std::string& structure, const std::vector<Tensor>& tensors, const char* fn)
      : reader_(reinterpret_cast<const uint8_t*>(structure.data()), structure.size(), context_, 0, kStructureFix,
                /*allow_nul=*/true),  // a Python string may hold NUL, and loading gives it as \u0000
        tensors_(tensors),
        fn_(fn) {
    context_ = str(fn, ": the structure");
  }

  // The pickle of the structure; every storage is planned on the way.
  std::string pickle() {
    value(0);
    reader_.skip_ws();
    if (!reader_.at_end()) reader_.fail(reader_.pos(), "text follows the structure's value");
    return w_.finish();
  }
  const std::vector<SavedStorage>& storages() const { return storages_; }

 private:
  void value(int depth) {
    if (depth > kMaxDepth) reader_.fail(reader_.pos(), str("the structure nests more than ", kMaxDepth, " deep"));
    const uint8_t c = reader_.peek();
    if (c == '"') return w_.string(reader_.string("a string value"));
    if (c == '[') {
      reader_.expect('[', "");
      w_.empty_list();
      if (reader_.accept(']')) return;
      w_.mark();
      do value(depth + 1);
      while (reader_.accept(','));
      reader_.expect(']', "after a list's items");
      return w_.appends();
    }
    if (c == '{') return tagged(depth);
    if (reader_.accept_literal("null")) return w_.none();
    if (reader_.accept_literal("true")) return w_.boolean(true);
    if (reader_.accept_literal("false")) return w_.boolean(false);
    const JsonReader::Number n = reader_.number_value("a value");
    if (n.is_int) w_.integer(n.i);
    else w_.real(n.d);
  }

  // {"tuple": [...]}, {"dict": [[k, v], ...]}, {"ordered_dict": ...}, {"tensor": i}, {"float": "nan"}
  void tagged(int depth) {
    reader_.expect('{', "");
    const size_t at = reader_.pos();
    const std::string tag = reader_.string("a tag");
    reader_.expect(':', "after a tag");
    if (tag == "tuple") {
      reader_.expect('[', "to start a tuple's items");
      if (reader_.accept(']')) {
        w_.empty_tuple();
      } else {
        w_.mark();
        do value(depth + 1);
        while (reader_.accept(','));
        reader_.expect(']', "after a tuple's items");
        w_.tuple();
      }
    } else if (tag == "dict" || tag == "ordered_dict") {
      if (tag == "dict") {
        w_.empty_dict();
      } else {
        w_.global("collections", "OrderedDict");
        w_.empty_tuple();
        w_.reduce();
      }
      reader_.expect('[', "to start a dict's items");
      if (!reader_.accept(']')) {
        w_.mark();
        do {
          reader_.expect('[', "to start a [key, value] pair");
          if (reader_.peek() == '"') {
            w_.string(reader_.string("a dict key"));
          } else {
            const size_t key_at = reader_.pos();
            const JsonReader::Number k = reader_.number_value("a dict key");
            if (!k.is_int) reader_.fail(key_at, "a dict key must be a string or an integer");
            w_.integer(k.i);
          }
          reader_.expect(',', "between a key and its value");
          value(depth + 1);
          reader_.expect(']', "after a [key, value] pair");
        } while (reader_.accept(','));
        reader_.expect(']', "after a dict's items");
        w_.setitems();
      }
    } else if (tag == "tensor") {
      const size_t i_at = reader_.pos();
      const JsonReader::Number i = reader_.number_value("a tensor index");
      if (!i.is_int || i.i < 0 || static_cast<uint64_t>(i.i) >= tensors_.size())
        reader_.fail(i_at, str("a tensor index must be an integer in [0, ", tensors_.size(), ")"));
      // A tensor named twice is one object when loaded, as torch's pickle memo makes it.
      auto [memo, fresh] = memo_of_.emplace(i.i, static_cast<uint32_t>(memo_of_.size()));
      if (fresh) {
        tensor(tensors_[static_cast<size_t>(i.i)]);
        w_.put(memo->second);
      } else {
        w_.get(memo->second);
      }
    } else if (tag == "float") {
      if (reader_.peek() == '"') {
        const size_t s_at = reader_.pos();
        const std::string s = reader_.string("a float");
        if (s == "nan") w_.real(std::nan(""));
        else if (s == "inf") w_.real(HUGE_VAL);
        else if (s == "-inf") w_.real(-HUGE_VAL);
        else reader_.fail(s_at, "a float given as a string must be \"nan\", \"inf\" or \"-inf\"");
      } else {
        w_.real(reader_.number_value("a float").d);
      }
    } else {
      reader_.fail(at, str("unknown tag \"", tag, "\" (expected tuple, dict, ordered_dict, tensor or float)"));
    }
    reader_.expect('}', "after a tagged value");
  }

  // _rebuild_tensor_v2((persistent storage id), offset, sizes, strides, requires_grad, OrderedDict())
  void tensor(const Tensor& t) {
    CT_CHECK(!t->device().is_meta(), CT_ERROR_DEVICE, fn_, ": a meta tensor ", t->sym_sizes(),
             " has no data to save. Compute it on a real device");
    CT_CHECK(!t->is_symbolic(), CT_ERROR_INVALID_ARGUMENT, fn_, ": a tensor with symbolic sizes cannot be saved");
    Tensor host = t;
    int64_t offset = t->storage_offset();
    const StorageImpl* impl = t->storage();
    if (!t->device().is_cpu()) {  // a host copy, saved as its own storage
      host = ops::contiguous(ops::to(t, kCPU, t->dtype()));
      offset = 0;
      impl = nullptr;
    }
    size_t key = storages_.size();
    auto known = impl ? key_of_.find(impl) : key_of_.end();
    if (known != key_of_.end() && storages_[known->second].owner->dtype() == host->dtype()) {
      key = known->second;
    } else {
      const size_t nbytes = impl ? impl->nbytes() : static_cast<size_t>(host->numel()) * itemsize(host->dtype());
      storages_.push_back({impl, host, nbytes});
      if (impl) key_of_.emplace(impl, key);
    }
    w_.global("torch._utils", "_rebuild_tensor_v2");
    w_.mark();
    w_.mark();
    w_.string("storage");
    w_.global("torch", storage_type_name(host->dtype()));
    w_.string(std::to_string(key));
    w_.string("cpu");
    w_.integer(static_cast<int64_t>(storages_[key].nbytes / itemsize(host->dtype())));
    w_.tuple();
    w_.binpersid();
    w_.integer(offset);
    ints(host->sizes());
    ints(host->strides());
    w_.boolean(t->requires_grad());
    w_.global("collections", "OrderedDict");
    w_.empty_tuple();
    w_.reduce();
    w_.tuple();
    w_.reduce();
  }

  void ints(IntArrayRef v) {
    if (v.empty()) return w_.empty_tuple();
    w_.mark();
    for (int64_t x : v) w_.integer(x);
    w_.tuple();
  }

  std::string context_;
  JsonReader reader_;
  PickleWriter w_;
  const std::vector<Tensor>& tensors_;
  const char* fn_;
  std::vector<SavedStorage> storages_;
  std::unordered_map<const StorageImpl*, size_t> key_of_;
  std::unordered_map<int64_t, uint32_t> memo_of_;  // tensor index -> its pickle memo slot
};

}  // namespace

TorchFile load_torch_file(const uint8_t* bytes, size_t size, const std::string& context) {
  const std::vector<ZipEntry> entries = read_zip(bytes, size, context);
  const ZipEntry* pkl = nullptr;
  for (const ZipEntry& e : entries) {
    const size_t slash = e.name.find('/');
    if (slash != std::string::npos && e.name.compare(slash, std::string::npos, "/data.pkl") == 0) {
      pkl = &e;
      break;
    }
  }
  CT_CHECK(pkl, CT_ERROR_FORMAT, context, ": the archive has no '<name>/data.pkl' record, so torch.save did not write "
           "it (a file from torch.save before PyTorch 1.6, or another zip file?). Save it again with torch.save");
  const std::string prefix = pkl->name.substr(0, pkl->name.size() - std::strlen("data.pkl"));
  for (const ZipEntry& e : entries)
    if (e.name == prefix + "byteorder") {
      const std::string order(reinterpret_cast<const char*>(bytes + e.offset), static_cast<size_t>(e.size));
      CT_CHECK(order == "little", CT_ERROR_FORMAT, context, ": the file was saved on a '", order,
               "'-endian machine; ctorch reads little-endian files. Save it again on a little-endian machine");
    }
  autograd::GradModeGuard no_grad(autograd::GradMode::NoGrad);
  Loader loader(bytes, entries, prefix, context);
  const PickleRef root = read_pickle(bytes + pkl->offset, static_cast<size_t>(pkl->size), loader, context);
  TorchFile out;
  out.structure = loader.json_of(root);
  out.tensors = loader.take_tensors_in_use();
  out.names = loader.take_names();
  return out;
}

namespace {

// with_data false: the same bytes counted, not made (no CRC, no storage read), for a buffer's size.
void write_file(const std::string& structure, const std::vector<Tensor>& tensors, const ByteSink& sink, const char* fn,
                bool with_data) {
  autograd::GradModeGuard no_grad(autograd::GradMode::NoGrad);
  Writer writer(structure, tensors, fn);
  const std::string pickle = writer.pickle();  // checks everything before a byte is written
  ZipWriter zip(sink);
  zip.add("archive/data.pkl", pickle);
  zip.add("archive/byteorder", "little");
  const auto& storages = writer.storages();
  for (size_t k = 0; k < storages.size(); ++k) {
    const SavedStorage& s = storages[k];
    const void* data = s.impl ? s.impl->data() : s.owner->data();
    zip.add(str("archive/data/", k), s.nbytes, with_data ? crc32(0, data, s.nbytes) : 0,
            [&](const ZipWriter::Sink& out) {
              if (s.nbytes) out(with_data ? data : nullptr, s.nbytes);
            });
  }
  zip.add("archive/version", "3\n");
  zip.finish();
}

}  // namespace

void write_torch_file(const std::string& structure, const std::vector<Tensor>& tensors, const ByteSink& sink,
                      const char* fn) {
  write_file(structure, tensors, sink, fn, true);
}

uint64_t torch_file_size(const std::string& structure, const std::vector<Tensor>& tensors, const char* fn) {
  uint64_t n = 0;
  write_file(structure, tensors, [&](const void*, size_t k) { n += k; }, fn, false);
  return n;
}

}  // namespace ct::io
