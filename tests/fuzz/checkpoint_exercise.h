/*
 * checkpoint_exercise.h - what every fuzzed checkpoint goes through (fuzz_checkpoint.c, the
 * libFuzzer target, and checkpoint_mutate.c, the deterministic CTest run).
 *
 * exercise_checkpoint(data, size) opens the bytes, and when they open, reads every tensor fully,
 * the metadata, and saves everything that reads back (but tensors named "", which ctorch refuses to
 * write) into a new buffer that must open again with the same names and sizes. It returns NULL when every call either succeeded or failed with
 * a status the header documents for it (with a message), and otherwise a description of the
 * broken promise. Crashes, leaks and out-of-bounds reads are the sanitizers' to report.
 */
#ifndef CTORCH_CHECKPOINT_EXERCISE_H
#define CTORCH_CHECKPOINT_EXERCISE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctorch.h"

/* A failure must carry a documented status and a message. */
static int exercise_failed_properly(ct_status st, ct_status a, ct_status b) {
  return (st == a || st == b || st == CT_ERROR_OUT_OF_MEMORY) && ct_last_error()[0] != '\0';
}

static const char* exercise_checkpoint(const uint8_t* data, size_t size) {
  ct_checkpoint* ck = NULL;
  ct_status st = ct_checkpoint_open_buffer(data, size, &ck);
  if (st != CT_OK) return exercise_failed_properly(st, CT_ERROR_FORMAT, CT_ERROR_FORMAT) && !ck ? NULL : "open failed badly";
  const char* problem = NULL;
  size_t n = 0, kept = 0;
  if (ct_checkpoint_num_tensors(ck, &n) != CT_OK) problem = "num_tensors failed";
  const char** names = calloc(n ? n : 1, sizeof *names);
  ct_tensor** ts = calloc(n ? n : 1, sizeof *ts);
  uint64_t total = 0;
  for (size_t i = 0; i < n && !problem; ++i) {
    const char* name = NULL;
    ct_tensor* t = NULL;
    if (ct_checkpoint_name(ck, i, &name) != CT_OK || !name) {
      problem = "name failed";
      break;
    }
    st = ct_checkpoint_get(ck, name, &t);
    if (st != CT_OK) {
      /* Unsupported dtypes and non-0/1 bools are the only reasons a listed tensor is refused. */
      if (!exercise_failed_properly(st, CT_ERROR_DTYPE, CT_ERROR_FORMAT) || t) problem = "get failed badly";
      continue;
    }
    int64_t numel = 0;
    ct_dtype dt = CT_UINT8; /* read as 0 bytes when inspecting fails */
    if (ct_tensor_numel(t, &numel) != CT_OK || ct_tensor_dtype(t, &dt) != CT_OK) problem = "inspecting a tensor failed";
    const size_t bytes = (size_t)numel * ct_dtype_itemsize(dt);
    total += bytes;
    if (!problem && total > size) problem = "tensors hold more bytes than the file";
    void* copy = malloc(bytes ? bytes : 1);
    if (!problem && ct_tensor_copy_to(t, copy, bytes) != CT_OK) problem = "reading a tensor failed";
    free(copy);
    if (name[0] == '\0') { /* opens (the format allows it) but ctorch does not write empty names */
      ct_tensor_release(t);
      continue;
    }
    names[kept] = name;
    ts[kept++] = t;
  }
  char* meta = NULL;
  if (!problem && ct_checkpoint_metadata_json(ck, &meta) != CT_OK) problem = "metadata_json failed";
  /* What was read saves, and the save opens again with the same tensors. */
  char* saved = NULL;
  size_t saved_size = 0;
  if (!problem) {
    const char* meta_arg = meta && strcmp(meta, "null") != 0 ? meta : NULL;
    st = ct_checkpoint_save_buffer(names, (const ct_tensor* const*)ts, kept, meta_arg, &saved, &saved_size);
    if (st != CT_OK) problem = exercise_failed_properly(st, CT_ERROR_OUT_OF_MEMORY, CT_ERROR_OUT_OF_MEMORY)
                                   ? NULL : "saving what was read failed";
  }
  if (!problem && saved) {
    ct_checkpoint* again = NULL;
    size_t m = 0;
    if (ct_checkpoint_open_buffer(saved, saved_size, &again) != CT_OK || ct_checkpoint_num_tensors(again, &m) != CT_OK ||
        m != kept)
      problem = "a saved checkpoint did not open again";
    for (size_t i = 0; i < kept && !problem; ++i) {
      ct_tensor* u = NULL;
      int64_t a = 0, b = 0;
      if (ct_checkpoint_get(again, names[i], &u) != CT_OK || ct_tensor_numel(u, &a) != CT_OK ||
          ct_tensor_numel(ts[i], &b) != CT_OK || a != b)
        problem = "a saved tensor came back different";
      ct_tensor_release(u);
    }
    ct_checkpoint_release(again);
  }
  ct_string_release(saved);
  ct_string_release(meta);
  for (size_t i = 0; i < kept; ++i) ct_tensor_release(ts[i]);
  free(ts);
  free(names);
  ct_checkpoint_release(ck);
  return problem;
}

#endif /* CTORCH_CHECKPOINT_EXERCISE_H */
