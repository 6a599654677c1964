/*
 * fuzz_schema.c - a libFuzzer target over the operator-schema parser behind ct_library_define.
 *
 * The input, as a NUL-terminated string, is a schema. It must either be refused with
 * CT_ERROR_FORMAT or CT_ERROR_INVALID_ARGUMENT and a message, or define an operator that then
 * behaves: ct_op_schema prints its normalized text, which defines the same operator again under
 * another namespace and prints back identically; ct_op_registry_json stays valid JSON; and the
 * operator, given a C kernel that reads every argument it receives, is called with every argument
 * left to its default (refused, or run with values of the kinds the schema's types say). Build it with CTORCH_BUILD_FUZZERS=ON and
 * clang (tests/fuzz/CMakeLists.txt), then:
 *
 *   ./build-fuzz/tests/fuzz/fuzz_schema tests/fuzz/corpus/schema -max_total_time=600
 *
 * Operators are never removed, so after kMaxDefinitions definitions the target renames every "::"
 * of each input to "__": the whole text is still parsed, then refused for its missing namespace,
 * and memory stays bounded.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctorch.h"
#include "json_check.h"

#define FUZZ_NAME "fuzz_schema"
#include "fuzz_main.h"

enum { kMaxDefinitions = 2000, kMaxText = 4096 };

static int g_defined;

/* The argument types of the operator being called, from its printed schema, and whether its kernel
 * got a value of a kind its type cannot have (a Tensor argument given an int). */
static char g_types[64][32];
static size_t g_ntypes;
static int g_wrong_kind;

/* Reads the type of each argument of a printed schema ("ns::op(Tensor x, *, int[] d=[1]) -> ..."),
 * without its alias annotation ("Tensor(a!)?" is read "Tensor?"): the annotation may be long and
 * hold any name, and an argument whose type was not recorded would shift every later one. */
static void read_types(const char* line) {
  g_ntypes = 0;
  const char* p = strchr(line, '(');
  for (int start = 1; p && *p && *p != ')'; ++p) {
    if (*p == '\'') {
      p = strchr(p + 1, '\'');
      if (!p) return;
    } else if (*p == ',' || *p == '(') {
      start = 1;
    } else if (start && *p != ' ' && *p != '*') {
      size_t n = 0, kept = 0; /* n: the type's text with its annotation; kept: what is recorded */
      char* out = g_ntypes < 64 ? g_types[g_ntypes] : NULL;
      for (int depth = 0; p[n] && (depth > 0 || !strchr(" ,)", p[n])); ++n) {
        const int opens = p[n] == '(', closes = p[n] == ')';
        if (depth == 0 && !opens && out && kept + 1 < sizeof g_types[0]) out[kept++] = p[n];
        depth += opens - closes;
      }
      if (out) {
        out[kept] = '\0';
        ++g_ntypes;
      }
      start = 0;
      p += n - 1;
    }
  }
}

/* Whether a value of kind k may reach a kernel for an argument of the printed type. */
static int kind_fits(const char* type, ct_value_kind k) {
  if (strchr(type, '?') && k == CT_VALUE_NONE) return 1;
  const int list = strchr(type, '[') != NULL;
  if (!strncmp(type, "Tensor", 6)) return k == (list ? CT_VALUE_TENSORS : CT_VALUE_TENSOR);
  if (!strncmp(type, "int", 3) || !strncmp(type, "SymInt", 6))
    return list ? k == CT_VALUE_INTS || k == CT_VALUE_SYMINTS : k == CT_VALUE_INT || k == CT_VALUE_SYMINT;
  if (!strncmp(type, "float", 5)) return k == CT_VALUE_FLOAT || k == CT_VALUE_INT;
  if (!strncmp(type, "bool", 4)) return k == CT_VALUE_BOOL;
  if (!strncmp(type, "ScalarType", 10)) return k == CT_VALUE_DTYPE;
  if (!strncmp(type, "Scalar", 6)) return k == CT_VALUE_INT || k == CT_VALUE_FLOAT || k == CT_VALUE_BOOL;
  if (!strncmp(type, "Device", 6)) return k == CT_VALUE_DEVICE;
  if (!strncmp(type, "str", 3)) return k == CT_VALUE_STRING;
  return k == CT_VALUE_NONE; /* Generator */
}

/* A kernel that looks at everything it is given, and returns zeros. */
static ct_status reading_kernel(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs, size_t nouts) {
  (void)user_data;
  size_t seen = 0;
  for (size_t i = 0; i < nargs; ++i) {
    const ct_value* v = &args[i];
    if (i < g_ntypes && !kind_fits(g_types[i], v->kind)) g_wrong_kind = 1;
    size_t ndim = 0;
    if (v->kind == CT_VALUE_TENSOR && v->tensor && ct_tensor_ndim(v->tensor, &ndim) == CT_OK) seen += ndim;
    if (v->kind == CT_VALUE_INTS)
      for (size_t k = 0; k < v->len; ++k) seen += (size_t)v->ints[k];
    if (v->kind == CT_VALUE_TENSORS)
      for (size_t k = 0; k < v->len; ++k) seen += v->tensors[k] != NULL;
    if ((v->kind == CT_VALUE_STRING || v->kind == CT_VALUE_DEVICE) && v->str) seen += strlen(v->str);
  }
  for (size_t k = 0; k < nouts; ++k) {
    const ct_status st = ct_tensor_zeros(NULL, 0, CT_FLOAT32, NULL, &outs[k]);
    if (st != CT_OK) return st;
  }
  return seen == (size_t)-1 ? CT_ERROR_INTERNAL : CT_OK; /* keeps the reads */
}

/* The operator's full name: the text before '(' without whitespace (the parser skips it). */
static int full_name(const char* text, char* out, size_t cap) {
  size_t n = 0;
  for (const char* p = text; *p && *p != '('; ++p) {
    if (isspace((unsigned char)*p)) continue;
    if (n + 1 == cap) return 0;
    out[n++] = *p;
  }
  out[n] = '\0';
  return n > 0;
}

static const char* refused_properly(ct_status st) {
  if ((st != CT_ERROR_FORMAT && st != CT_ERROR_INVALID_ARGUMENT) || ct_last_error()[0] == '\0')
    return "a refused schema gave a status other than CT_ERROR_FORMAT/INVALID_ARGUMENT, or no message";
  return NULL;
}

/* What a defined operator promises; name is its full name, "ns::op.overload". */
static const char* exercise_defined(const char* name) {
  char* printed = NULL;
  char* again = NULL;
  char* json = NULL;
  const char* problem = NULL;
  /* Without an overload name, ct_op_schema prints every overload of the name, one per line. */
  const char* line = NULL;
  const size_t n = strlen(name);
  if (ct_op_schema(name, &printed) == CT_OK && printed)
    for (line = printed; line && (strncmp(line, name, n) != 0 || line[n] != '(');)
      line = (line = strchr(line, '\n')) ? line + 1 : NULL;
  if (!line) {
    problem = "ct_op_schema does not print a defined operator";
  } else {
    /* The printed text defines the same operator under another namespace, and prints back the same. */
    const size_t len = strcspn(line, "\n");
    char* text = malloc(len + 32);
    char* copy_name = malloc(n + 32);
    const int ns_len = snprintf(text, len + 32, "rt%d", g_defined);
    const char* rest = strstr(line, "::");
    memcpy(text + ns_len, rest, len - (size_t)(rest - line));
    text[ns_len + len - (size_t)(rest - line)] = '\0';
    snprintf(copy_name, n + 32, "rt%d%s", g_defined, strstr(name, "::"));
    read_types(text);
    ct_error_set(CT_OK, NULL);
    if (ct_library_define(text) != CT_OK)
      problem = "the printed schema of an operator does not define one";
    else if (++g_defined, ct_op_schema(copy_name, &again) != CT_OK || strcmp(again, text) != 0)
      problem = "an operator defined from a printed schema prints differently";
    free(text);
    free(copy_name);
  }
  if (!problem && (ct_op_registry_json(&json) != CT_OK || !json_valid(json)))
    problem = "ct_op_registry_json is not JSON after a definition";
  if (!problem) {
    ct_error_set(CT_OK, NULL);
    ct_status st = ct_library_impl(name, "cpu", reading_kernel, NULL, NULL);
    /* "ns::op" names every overload of ns::op, so it may be ambiguous; "ns::op.x" never is. */
    if (st != CT_OK && strchr(strstr(name, "::"), '.')) {
      problem = "ct_library_impl refused a freshly defined operator";
    } else if (st == CT_OK) {
      ct_tensor* outs[8];
      memset(outs, 0, sizeof outs);
      g_wrong_kind = 0;
      st = ct_op_call(name, NULL, 0, outs, 8);
      if (st == CT_ERROR_INTERNAL || (st != CT_OK && ct_last_error()[0] == '\0'))
        problem = "calling a defined operator with its defaults failed badly";
      if (g_wrong_kind) problem = "a kernel got a default of a kind its schema type cannot have";
      for (size_t k = 0; k < 8; ++k) {
        if (st != CT_OK && outs[k]) problem = "a failed call left an output";
        ct_tensor_release(outs[k]);
      }
    }
  }
  ct_string_release(printed);
  ct_string_release(again);
  ct_string_release(json);
  return problem;
}

static const char* fuzz_exercise(const uint8_t* data, size_t size) {
  static char text[kMaxText + 1];
  if (size > kMaxText) size = kMaxText;
  memcpy(text, data, size);
  text[size] = '\0';
  const int registering = g_defined < kMaxDefinitions;
  if (!registering) {
    for (char* ns = strstr(text, "::"); ns; ns = strstr(ns, "::")) ns[0] = ns[1] = '_';
  }
  ct_error_set(CT_OK, NULL);
  const ct_status st = ct_library_define(text);
  if (st != CT_OK) return refused_properly(st);
  if (!registering) return "a schema without a namespace was defined";
  ++g_defined;
  char name[kMaxText];
  if (!full_name(text, name, sizeof name)) return "a schema without a name was defined";
  return exercise_defined(name);
}
