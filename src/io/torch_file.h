// torch_file.h - PyTorch's checkpoint files (torch.save / torch.load): loading one as a
// structure and its tensors, and writing one that torch.load(weights_only=True) reads.
//
// Note [A PyTorch file's structure]
// A torch.save file is a zip archive (Note [PyTorch's zip archives]) of "<name>/data.pkl", a pickle
// of the saved object in which every tensor is a call to torch._utils._rebuild_tensor_v2 over a
// storage named by a persistent id, and "<name>/data/<key>", each storage's bytes (little-endian).
// Loading runs the pickle restricted as Note [Reading pickles safely] says, allowing what
// torch.load(weights_only=True) allows for these values: tensors and parameters, OrderedDict, and
// plain values. Tensors that shared a storage share one here too (views keep their offsets and
// strides). The object comes back as JSON text, one value per Python value:
//   None, bools, ints, strings   null, true/false, integers, strings
//   float                        a number with a '.' or an exponent; {"float": "nan"|"inf"|"-inf"}
//   list                         [v, ...]
//   tuple                        {"tuple": [v, ...]}
//   dict, OrderedDict            {"dict": [[key, v], ...]}, {"ordered_dict": [[key, v], ...]}
//                                (keys are strings or integers, in the file's order)
//   tensor                       {"tensor": i}, i indexing the file's tensors (first use first)
// and saving reads the same JSON, so that C, and every binding, can write what Python writes.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"
#include "io/file.h"

namespace ct::io {

struct TorchFile {
  std::string structure;  // JSON, Note [A PyTorch file's structure]
  std::vector<Tensor> tensors;
  /// Where each tensor is first met: the dict keys and list positions leading to it, joined with
  /// '.' ("model.fc.weight", "layers.0"); "" for a tensor saved by itself. What a binding without a
  /// JSON reader names a state dict's tensors by.
  std::vector<std::string> names;
};

/// Loads the file held in bytes[0, size): CPU tensors (whatever device they were saved from), with
/// requires_grad as saved. CT_ERROR_FORMAT naming context, what is wrong and where otherwise.
TorchFile load_torch_file(const uint8_t* bytes, size_t size, const std::string& context);

/// Writes structure (JSON as above) over tensors as torch.save does; everything is checked before
/// the first byte reaches sink. Tensors on other devices are copied to the host. Failures name fn.
void write_torch_file(const std::string& structure, const std::vector<Tensor>& tensors, const ByteSink& sink,
                      const char* fn);

/// How many bytes write_torch_file writes for these arguments (checked as it checks them), without
/// reading the tensors' data: the size of a buffer to write into.
uint64_t torch_file_size(const std::string& structure, const std::vector<Tensor>& tensors, const char* fn);

}  // namespace ct::io
