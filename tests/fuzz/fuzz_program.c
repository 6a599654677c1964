/*
 * fuzz_program.c - a libFuzzer target over ct_program_load_buffer (docs/program-format.md) and
 * everything a loaded program offers.
 *
 * Bytes that do not load must fail with CT_ERROR_FORMAT (or CT_ERROR_OUT_OF_MEMORY), a message and
 * a NULL program. A program that loads must answer every query (its JSON valid), save, load back
 * and save to the same bytes, and run: on tensors of the specs its JSON advertises (a symbolic
 * size takes its symbol's hint), and once with one input too few. Calls either succeed with live
 * outputs that read back, or fail with a message and NULL outputs; never CT_ERROR_INTERNAL. After
 * each input "tensors.live" is back where it was. Build it with CTORCH_BUILD_FUZZERS=ON and clang
 * (tests/fuzz/CMakeLists.txt), then:
 *
 *   ./build-fuzz/tests/fuzz/fuzz_program tests/fuzz/corpus/program -max_total_time=600
 *
 * The seed corpus comes from corpus/make_program_corpus.c. A program runs only when every size its
 * graph prints is small: a file may legitimately ask for gigabytes, which is not a finding.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctorch.h"
#include "json_check.h"

#define FUZZ_NAME "fuzz_program"
#include "fuzz_main.h"

enum { kMaxInputs = 16, kMaxOutputs = 16, kMaxNumel = 4096, kMaxRank = 8 };

typedef struct spec {
  ct_dtype dtype;
  char device[16];
  size_t rank;
  int64_t sizes[kMaxRank];
} spec;

/* The integer after "key": inside obj, or dflt. */
static int64_t json_int_after(const char* obj, const char* end, const char* key, int64_t dflt) {
  const char* p = strstr(obj, key);
  return p && p < end ? strtoll(p + strlen(key), NULL, 10) : dflt;
}

/* The hint of the backed symbol called name (len bytes) in the "symbols" list, or 2. */
static int64_t symbol_hint(const char* json, const char* name, size_t len) {
  const char* syms = strstr(json, "\"symbols\": [");
  for (const char* p = syms; p && (p = strstr(p, "{\"name\": \"")) != NULL;) {
    p += 10;
    const char* end = strchr(p, '}');
    if (!end) break;
    if (!strncmp(p, name, len) && p[len] == '"') return json_int_after(p, end, "\"hint\": ", 2);
    p = end;
  }
  return 2;
}

/* Reads the input specs of ct_program_json; 0 when they are not what this target can build. */
static int read_specs(const char* json, spec* specs, size_t n) {
  const char* p = strstr(json, "{\"inputs\": [");
  for (size_t i = 0; i < n; ++i) {
    spec* s = &specs[i];
    if (!p || !(p = strstr(p, "{\"dtype\": \""))) return 0;
    p += 11;
    int found = 0;
    for (int d = 0; d <= CT_FLOAT64; ++d) {
      const char* name = ct_dtype_name((ct_dtype)d);
      if (!strncmp(p, name, strlen(name)) && p[strlen(name)] == '"') s->dtype = (ct_dtype)d, found = 1;
    }
    if (!found || !(p = strstr(p, "\"device\": \""))) return 0;
    p += 11;
    const size_t dn = strcspn(p, "\"");
    if (dn >= sizeof s->device) return 0;
    memcpy(s->device, p, dn);
    s->device[dn] = '\0';
    if (!(p = strstr(p, "\"sizes\": ["))) return 0;
    p += 10;
    int64_t numel = 1;
    for (s->rank = 0; *p != ']'; ++s->rank) {
      if (s->rank == kMaxRank) return 0;
      int64_t v;
      if (*p == '"') { /* a symbolic size: its expression's text; a plain symbol has a hint */
        const char* q = strchr(p + 1, '"');
        if (!q) return 0;
        v = symbol_hint(json, p + 1, (size_t)(q - p - 1));
        p = q + 1;
      } else {
        char* e;
        v = strtoll(p, &e, 10);
        if (e == p) return 0;
        p = e;
      }
      if (v < 0 || v > kMaxNumel || (numel *= v) > kMaxNumel) return 0;
      s->sizes[s->rank] = v;
      if (*p == ',') p += 2;
    }
  }
  return 1;
}

/* 1 when no integer in text exceeds kMaxNumel: the graph prints every size it computes. */
static int small_sizes(const char* text) {
  for (const char* p = text; *p; ++p) {
    if (*p < '0' || *p > '9') continue;
    char* e;
    const long long v = strtoll(p, &e, 10);
    if (v > kMaxNumel) return 0;
    p = e - 1;
  }
  return 1;
}

static const char* fail(const char* what) { return what; }

/* A failure carries a message and leaves every output NULL; success gives live, readable ones. */
static const char* check_outputs(ct_status st, ct_tensor** outs, size_t n) {
  if (st == CT_ERROR_INTERNAL || !strcmp(ct_status_name(st), "CT_ERROR_UNKNOWN")) return fail("call: bad status");
  for (size_t k = 0; k < n; ++k) {
    if (st != CT_OK) {
      if (outs[k]) return fail("call failed but left an output");
      continue;
    }
    int64_t numel = 0;
    ct_dtype dt;
    ct_device_type type;
    int32_t index;
    if (!outs[k] || ct_tensor_numel(outs[k], &numel) != CT_OK || ct_tensor_dtype(outs[k], &dt) != CT_OK ||
        ct_tensor_device(outs[k], &type, &index) != CT_OK)
      return fail("call succeeded with an output that does not read");
    if (type == CT_DEVICE_META || numel > kMaxNumel * 64) continue;
    const size_t bytes = (size_t)numel * ct_dtype_itemsize(dt);
    void* dst = malloc(bytes ? bytes : 1);
    const ct_status cst = ct_tensor_copy_to(outs[k], dst, bytes);
    free(dst);
    if (cst != CT_OK) return fail("an output of a call does not copy out");
  }
  if (st != CT_OK && ct_last_error()[0] == '\0') return fail("call failed without a message");
  return NULL;
}

/* Runs p on inputs of the advertised specs, and on one input too few. */
static const char* run(const ct_program* p, const char* json, size_t nin, size_t nout) {
  spec specs[kMaxInputs];
  ct_tensor* inputs[kMaxInputs] = {NULL};
  ct_tensor* outs[kMaxOutputs];
  if (nin > kMaxInputs || nout > kMaxOutputs || !read_specs(json, specs, nin)) return NULL;
  const char* problem = NULL;
  for (size_t i = 0; i < nin && !problem; ++i) {
    const spec* s = &specs[i];
    ct_status st;
    if (!strcmp(s->device, "meta"))
      st = ct_tensor_empty(s->sizes, s->rank, s->dtype, "meta", &inputs[i]);
    else if (s->dtype == CT_FLOAT32 || s->dtype == CT_FLOAT64)
      st = ct_tensor_rand(s->sizes, s->rank, s->dtype, s->device, NULL, &inputs[i]);
    else /* zeros are valid indices and counts */
      st = ct_tensor_zeros(s->sizes, s->rank, s->dtype, s->device, &inputs[i]);
    if (st != CT_OK && strcmp(s->device, "cpu") == 0) problem = fail("making an input of an advertised spec failed");
    if (st != CT_OK) goto done; /* a device this machine lacks */
  }
  for (int round = 0; round < 2 && !problem; ++round) {
    ct_error_set(CT_OK, NULL);
    memset(outs, 0, sizeof outs);
    const size_t n = round == 0 ? nin : nin - 1;
    const ct_status st = ct_program_call(p, (const ct_tensor* const*)inputs, n, outs, nout);
    if (round == 1 && nin > 0 && st != CT_ERROR_INVALID_ARGUMENT) problem = fail("one input too few was accepted");
    if (!problem) problem = check_outputs(st, outs, nout);
    for (size_t k = 0; k < nout; ++k) ct_tensor_release(outs[k]);
    if (nin == 0) break;
  }
done:
  for (size_t i = 0; i < nin; ++i) ct_tensor_release(inputs[i]);
  return problem;
}

static const char* exercise_loaded(ct_program* p) {
  size_t nin = 0, nout = 0;
  char *graph = NULL, *json = NULL, *saved = NULL, *saved2 = NULL;
  size_t size = 0, size2 = 0;
  ct_program* again = NULL;
  const char* problem = NULL;
  if (ct_program_num_inputs(p, &nin) != CT_OK || ct_program_num_outputs(p, &nout) != CT_OK)
    problem = fail("num_inputs/num_outputs failed");
  else if (ct_program_graph(p, &graph) != CT_OK || !graph)
    problem = fail("ct_program_graph failed");
  else if (ct_program_json(p, &json) != CT_OK || !json || !json_valid(json))
    problem = fail("ct_program_json failed or is not JSON");
  /* What loads saves, loads back and saves to the same bytes (docs/program-format.md). */
  else if (ct_program_save_buffer(p, &saved, &size) != CT_OK)
    problem = fail("a loaded program does not save");
  else if (ct_program_load_buffer(saved, size, &again) != CT_OK)
    problem = fail("a saved program does not load");
  else if (ct_program_save_buffer(again, &saved2, &size2) != CT_OK)
    problem = fail("a reloaded program does not save");
  else if (size2 != size || memcmp(saved, saved2, size))
    problem = fail("a program saved, loaded and saved again changed");
  if (!problem && small_sizes(graph)) problem = run(p, json, nin, nout);
  ct_string_release(graph);
  ct_string_release(json);
  ct_string_release(saved);
  ct_string_release(saved2);
  ct_program_release(again);
  return problem;
}

static const char* fuzz_exercise(const uint8_t* data, size_t size) {
  static int ready;
  if (!ready) {
    if (ct_set_num_threads(1) != CT_OK) abort();
    ready = 1;
  }
  int64_t live0 = 0, live1 = 0;
  if (ct_metric_get("tensors.live", &live0) != CT_OK || ct_manual_seed(0) != CT_OK) abort();
  ct_error_set(CT_OK, NULL);
  ct_program* p = (ct_program*)(uintptr_t)0x1;
  const ct_status st = ct_program_load_buffer(data, size, &p);
  const char* problem = NULL;
  if (st != CT_OK) {
    if ((st != CT_ERROR_FORMAT && st != CT_ERROR_OUT_OF_MEMORY) || p || ct_last_error()[0] == '\0')
      problem = fail("load failed badly (a status other than CT_ERROR_FORMAT, no message, or a program)");
  } else {
    problem = exercise_loaded(p);
    ct_program_release(p);
  }
  if (ct_metric_get("tensors.live", &live1) != CT_OK) abort();
  if (!problem && live1 != live0) problem = fail("tensors leaked (tensors.live grew)");
  return problem;
}
