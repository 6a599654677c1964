// program.cpp - compiling Bool expressions to postfix code and running it (see program.h).
#include "symbolic/program.h"

#include <algorithm>
#include <cstring>

#include "symbolic/arith.h"
#include "symbolic/eval.h"

namespace ct::sym {

void Program::emit(const Node* n, size_t depth) {
  max_depth_ = std::max(max_depth_, depth + 1);
  Instr in;
  in.node = n;
  if (n->op == Op::Const) {
    in.code = Code::Const;
    std::memcpy(&in.i, &n->value, sizeof in.i);
  } else if (n->op == Op::Symbol) {
    in.code = Code::Symbol;
    in.i = n->value.i;
    max_symbol_ = std::max(max_symbol_, static_cast<size_t>(n->value.i) + 1);
  } else if (n->op == Op::Ite) {
    in.code = Code::Tree;
    // A Tree reads the binding itself; make sure it is long enough for every symbol below.
    std::vector<const Node*> todo{n};
    while (!todo.empty()) {
      const Node* x = todo.back();
      todo.pop_back();
      if (x->op == Op::Symbol) max_symbol_ = std::max(max_symbol_, static_cast<size_t>(x->value.i) + 1);
      todo.insert(todo.end(), x->args.begin(), x->args.end());
    }
  } else {
    for (size_t k = 0; k < n->args.size(); ++k) emit(n->args[k], depth + k);
    in.n = static_cast<uint32_t>(n->args.size());
    const bool int_args = n->type == Type::Int || (n->args.size() == 1 && n->args[0]->type == Type::Int);
    if (n->op == Op::Add && n->type == Type::Int) in.code = Code::AddInt;
    else if (n->op == Op::Mul && n->type == Type::Int) in.code = Code::MulInt;
    else if (n->op == Op::Le && n->args.size() == 1 && int_args) in.code = Code::LeZero;
    else if (n->op == Op::Eq && n->args.size() == 1 && int_args) in.code = Code::EqZero;
    else if (n->op == Op::Ne && n->args.size() == 1 && int_args) in.code = Code::NeZero;
    else in.code = Code::Apply;
  }
  code_.push_back(in);
}

void Program::add_root(const Node* n) {
  emit(n, 0);
  Instr end;
  end.code = Code::Root;
  code_.push_back(end);
  ++roots_;
}

int64_t Program::first_false(ArrayRef<BoundValue> binding) const {
  CT_CHECK(binding.size() >= max_symbol_, CT_ERROR_INVALID_ARGUMENT, "symbolic evaluate: the binding has ",
           binding.size(), " values but the expressions use ", max_symbol_,
           " symbols. Bind every symbol of the ShapeEnv, in creation order");
  BoundValue small[64];
  std::vector<BoundValue> big;
  BoundValue* stack = small;
  if (max_depth_ > 64) big.resize(max_depth_), stack = big.data();
  size_t top = 0;  // stack[0, top) is live
  int64_t root = 0;
  for (const Instr& in : code_) {
    switch (in.code) {
      case Code::Const: stack[top++].i = in.i; break;
      case Code::Symbol: stack[top++] = binding[static_cast<size_t>(in.i)]; break;
      case Code::AddInt: {
        BoundValue* a = stack + (top -= in.n);
        int64_t s = a[0].i;
        for (uint32_t k = 1; k < in.n; ++k) s = checked_add(s, a[k].i);
        stack[top++].i = s;
        break;
      }
      case Code::MulInt: {
        BoundValue* a = stack + (top -= in.n);
        int64_t p = a[0].i;
        for (uint32_t k = 1; k < in.n; ++k) p = checked_mul(p, a[k].i);
        stack[top++].i = p;
        break;
      }
      case Code::LeZero: stack[top - 1].i = stack[top - 1].i <= 0; break;
      case Code::EqZero: stack[top - 1].i = stack[top - 1].i == 0; break;
      case Code::NeZero: stack[top - 1].i = stack[top - 1].i != 0; break;
      case Code::Apply: {
        top -= in.n;
        stack[top] = apply(*in.node, stack + top);
        ++top;
        break;
      }
      case Code::Tree: stack[top++] = evaluate(in.node, binding); break;
      case Code::Root:
        if (!stack[--top].i) return root;
        ++root;
        break;
    }
  }
  return -1;
}

}  // namespace ct::sym
