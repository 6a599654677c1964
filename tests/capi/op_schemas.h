/*
 * op_schemas.h - the operators of ct_op_registry_json as C structs: each overload's name, the kind
 * of each argument, whether it may be None or left out, and the number of returns. For the tests
 * that call every operator (test_every_operator.c, tests/fuzz/fuzz_sequence.c).
 */
#ifndef CTORCH_TESTS_OP_SCHEMAS_H
#define CTORCH_TESTS_OP_SCHEMAS_H

#include <stdlib.h>
#include <string.h>

#include "ctorch.h"

enum { kSchemaMaxArgs = 16, kSchemaMaxReturns = 8 };

typedef enum arg_kind { A_TENSOR, A_TENSORS, A_INT, A_INTS, A_FLOAT, A_BOOL, A_SCALAR, A_DTYPE, A_DEVICE, A_STR, A_OTHER } arg_kind;

typedef struct op_info {
  char name[96]; /* "add.Tensor" */
  int nargs, nreturns;
  arg_kind kinds[kSchemaMaxArgs];
  int optional[kSchemaMaxArgs];  /* may be None or left out */
  int defaulted[kSchemaMaxArgs]; /* has a default, so it (and every one after it) may be left out */
} op_info;

static arg_kind schema_arg_kind(const char* type, size_t n) {
  const int list = memchr(type, '[', n) != NULL;
  if (!strncmp(type, "Tensor", 6)) return list ? A_TENSORS : A_TENSOR;
  if (!strncmp(type, "int", 3) || !strncmp(type, "SymInt", 6)) return list ? A_INTS : A_INT;
  if (!strncmp(type, "float", 5)) return A_FLOAT;
  if (!strncmp(type, "bool", 4)) return A_BOOL;
  if (!strncmp(type, "Scalar", 6) && strncmp(type, "ScalarType", 10)) return A_SCALAR;
  if (!strncmp(type, "ScalarType", 10)) return A_DTYPE;
  if (!strncmp(type, "Device", 6)) return A_DEVICE;
  if (!strncmp(type, "str", 3)) return A_STR;
  return A_OTHER; /* Generator: boxed calls take only None there */
}

/* Parses "name(args) -> returns", splitting at the top-level commas; 0 when it cannot. */
static int parse_op_schema(const char* s, op_info* op) {
  memset(op, 0, sizeof *op);
  const char* open = strchr(s, '(');
  if (!open || (size_t)(open - s) >= sizeof op->name) return 0;
  memcpy(op->name, s, (size_t)(open - s));
  const char* p = open + 1;
  int depth = 0;
  const char* start = p;
  for (; *p && !(depth == 0 && *p == ')'); ++p) {
    if (*p == '\'') { /* string defaults may hold anything */
      const char* q = strchr(p + 1, '\'');
      if (!q) return 0;
      p = q;
    } else if (*p == '(' || *p == '[') {
      ++depth;
    } else if (*p == ')' || *p == ']') {
      --depth;
    }
    if (depth == 0 && (p[1] == ',' || p[1] == ')')) {
      while (*start == ' ' || *start == ',') ++start;
      const size_t n = (size_t)(p + 1 - start);
      if (n > 0 && !(n == 1 && *start == '*') && op->nargs < kSchemaMaxArgs) {
        size_t tn = 0;
        while (tn < n && start[tn] != ' ') ++tn;
        op->kinds[op->nargs] = schema_arg_kind(start, tn);
        op->defaulted[op->nargs] = memchr(start, '=', n) != NULL;
        op->optional[op->nargs] = memchr(start, '?', tn) != NULL || op->defaulted[op->nargs];
        ++op->nargs;
      }
      start = p + 1;
    }
  }
  const char* arrow = strstr(p, "->");
  if (!arrow) return 0;
  arrow += 2;
  while (*arrow == ' ') ++arrow;
  if (*arrow == '(') {
    op->nreturns = arrow[1] == ')' ? 0 : 1;
    for (const char* q = arrow; *q; ++q) op->nreturns += *q == ',';
  } else {
    op->nreturns = 1;
  }
  return op->nreturns <= kSchemaMaxReturns;
}

/* Fills ops (room for cap) with every operator whose schema parses; returns how many, or -1 when
 * the registry cannot be read. The registry JSON escapes \" \\ \n in its strings. */
static int load_op_schemas(op_info* ops, int cap) {
  char* json = NULL;
  if (ct_op_registry_json(&json) != CT_OK) return -1;
  static const char key[] = "\"schema\": \"";
  int n = 0;
  for (const char* p = strstr(json, key); p && n < cap; p = strstr(p, key)) {
    p += sizeof key - 1;
    char text[1024];
    size_t len = 0;
    for (; *p && *p != '"' && len + 1 < sizeof text; ++p) text[len++] = *p == '\\' && p[1] ? *++p : *p;
    text[len] = '\0';
    n += parse_op_schema(text, &ops[n]);
  }
  ct_string_release(json);
  return n;
}

/* The most returns among the operators ct_op_call(name) may run, which are the slots it writes:
 * name itself when it names an overload ("max.dim"), else every overload of that base name. */
static size_t op_max_returns(const op_info* ops, int n, const char* name) {
  const int pinned = strchr(name, '.') != NULL;
  const size_t len = strlen(name);
  size_t most = 0;
  for (int i = 0; i < n; ++i) {
    const char* o = ops[i].name;
    const int same = pinned ? !strcmp(o, name) : !strncmp(o, name, len) && (o[len] == '\0' || o[len] == '.');
    if (same && (size_t)ops[i].nreturns > most) most = (size_t)ops[i].nreturns;
  }
  return most;
}

#endif /* CTORCH_TESTS_OP_SCHEMAS_H */
