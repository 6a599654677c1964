/*
 * fuzz_torch_file.c - a libFuzzer target over ct_torch_load_buffer (PyTorch files: a zip archive
 * around a pickle, ctorch.h "Checkpoints: PyTorch files") and everything a loaded file offers.
 *
 * Bytes that do not load must fail with CT_ERROR_FORMAT (or CT_ERROR_OUT_OF_MEMORY), a message and
 * a NULL file; the loader never runs what the pickle names. A file that loads must give a valid
 * JSON structure, a name and a readable tensor for every index, save back (structure and tensors)
 * and load again to the same structure and names. After each input "tensors.live" is back where it
 * was. Build it with CTORCH_BUILD_FUZZERS=ON and clang (tests/fuzz/CMakeLists.txt), then:
 *
 *   ./build-fuzz/tests/fuzz/fuzz_torch_file tests/fuzz/corpus/torch_file -max_total_time=600
 *
 * The seed corpus comes from corpus/make_torch_file_corpus.py (files torch.save and ctorch write).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctorch.h"
#include "json_check.h"

#define FUZZ_NAME "fuzz_torch_file"
#include "fuzz_main.h"

enum { kMaxTensors = 64, kMaxBytes = 1 << 20 };

static int64_t live_tensors(void) {
  int64_t n = -1;
  return ct_metric_get("tensors.live", &n) == CT_OK ? n : -1;
}

/* Saves f's structure over its tensors and loads the bytes back: the same structure and names. */
static const char* round_trip(const ct_torch_file* f, const char* structure, ct_tensor** ts, size_t n) {
  char* data = NULL;
  size_t size = 0;
  if (ct_torch_save_buffer(structure, (const ct_tensor* const*)ts, n, &data, &size) != CT_OK)
    return "a loaded file's structure and tensors do not save";
  ct_torch_file* g = NULL;
  const char* problem = NULL;
  if (ct_torch_load_buffer(data, size, &g) != CT_OK) {
    problem = "what was saved does not load";
  } else {
    const char* s2 = NULL;
    size_t n2 = 0;
    if (ct_torch_file_structure(g, &s2) != CT_OK || strcmp(s2, structure) != 0) problem = "the structure changed";
    else if (ct_torch_file_num_tensors(g, &n2) != CT_OK || n2 != n) problem = "the number of tensors changed";
    for (size_t i = 0; !problem && i < n; ++i) {
      const char *a = NULL, *b = NULL;
      if (ct_torch_file_tensor_name(f, i, &a) != CT_OK || ct_torch_file_tensor_name(g, i, &b) != CT_OK ||
          strcmp(a, b) != 0)
        problem = "a tensor's name changed";
    }
    ct_torch_file_release(g);
  }
  ct_string_release(data);
  return problem;
}

static const char* exercise(const uint8_t* data, size_t size) {
  ct_torch_file* f = (ct_torch_file*)(uintptr_t)1;
  const ct_status st = ct_torch_load_buffer(data, size, &f);
  if (st != CT_OK) {
    if (f != NULL) return "a failed load left its out pointer set";
    if (st != CT_ERROR_FORMAT && st != CT_ERROR_OUT_OF_MEMORY) return "a load failed with a status other than FORMAT";
    if (!ct_last_error()[0]) return "a failed load gave no message";
    return NULL;
  }
  const char* structure = NULL;
  size_t n = 0;
  if (ct_torch_file_structure(f, &structure) != CT_OK || !json_valid(structure)) {
    ct_torch_file_release(f);
    return "the structure is not one JSON value";
  }
  if (ct_torch_file_num_tensors(f, &n) != CT_OK) {
    ct_torch_file_release(f);
    return "num_tensors failed";
  }
  const char* problem = NULL;
  ct_tensor* ts[kMaxTensors] = {0};
  const size_t kept = n < kMaxTensors ? n : kMaxTensors;
  for (size_t i = 0; !problem && i < n; ++i) {
    const char* name = NULL;
    ct_tensor* t = NULL;
    if (ct_torch_file_tensor_name(f, i, &name) != CT_OK || !name) problem = "a tensor has no name";
    else if (ct_torch_file_tensor(f, i, &t) != CT_OK || !t) problem = "a tensor cannot be got";
    if (!t) break;
    int64_t numel = 0;
    ct_dtype dt = CT_FLOAT32;
    size_t item = 0;
    if (ct_tensor_numel(t, &numel) != CT_OK || ct_tensor_dtype(t, &dt) != CT_OK) problem = "a tensor cannot be read";
    item = ct_dtype_itemsize(dt);
    if (!problem && numel > 0 && (uint64_t)numel * item <= kMaxBytes) {
      void* buf = malloc((size_t)numel * item);
      if (buf && ct_tensor_copy_to(t, buf, (size_t)numel * item) != CT_OK) problem = "a tensor's data cannot be read";
      free(buf);
    }
    if (i < kept) ts[i] = t;
    else ct_tensor_release(t);
  }
  if (!problem && n <= kMaxTensors) problem = round_trip(f, structure, ts, n);
  for (size_t i = 0; i < kept; ++i) ct_tensor_release(ts[i]);
  ct_torch_file_release(f);
  return problem;
}

static const char* fuzz_exercise(const uint8_t* data, size_t size) {
  const int64_t before = live_tensors();
  const char* problem = exercise(data, size);
  if (!problem && live_tensors() != before) problem = "tensors leaked";
  return problem;
}
