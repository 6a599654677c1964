// print.cpp - expressions as Python-style text: `2*s0 + 1`, `s0 >= 1`, `max(s0, s1)`, `s0//4`.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "symbolic/shape_env.h"

namespace ct::sym {
namespace {

// Binding strength, weakest first; an operand that binds weaker than its place needs parentheses.
enum Prec { kLogic = 0, kNot, kRelation, kSum, kProduct, kUnary, kPower, kAtom };

class Printer {
 public:
  explicit Printer(const ShapeEnv& env) : env_(env) {}

  void print(const Node* n, int min_prec) {
    const int p = prec(n);
    if (p < min_prec) out_ += '(';
    body(n);
    if (p < min_prec) out_ += ')';
  }
  std::string take() { return std::move(out_); }

 private:
  static int prec(const Node* n) {
    switch (n->op) {
      case Op::Const: return n->type != Type::Bool && (n->type == Type::Float ? n->value.f < 0 : n->value.i < 0) ? kUnary : kAtom;
      case Op::Add: return kSum;
      case Op::Mul: return n->args[0]->is_const() && n->args[0]->type == Type::Int && n->args[0]->value.i == -1 ? kUnary : kProduct;
      case Op::FloorDiv:
      case Op::Mod:
      case Op::TrueDiv: return kProduct;
      case Op::Pow: return kPower;
      case Op::Eq:
      case Op::Ne:
      case Op::Lt:
      case Op::Le: return kRelation;
      case Op::Not: return kNot;
      case Op::And:
      case Op::Or: return kLogic;
      default: return kAtom;
    }
  }

  void number(const Node* n) {
    if (n->type == Type::Bool) { out_ += n->value.i ? "True" : "False"; return; }
    if (n->type == Type::Int) { out_ += std::to_string(n->value.i); return; }
    const double v = n->value.f;
    if (std::isinf(v)) { out_ += v > 0 ? "inf" : "-inf"; return; }
    if (std::isnan(v)) { out_ += "nan"; return; }
    char buf[40];
    for (int digits = 1; digits <= 17; ++digits) {  // the shortest text that reads back exactly
      std::snprintf(buf, sizeof buf, "%.*g", digits, v);
      if (std::strtod(buf, nullptr) == v) break;
    }
    out_ += buf;
    if (std::string(buf).find_first_of(".en") == std::string::npos) out_ += ".0";
  }

  // |v| in decimal; |INT64_MIN| does not fit in int64, so it is computed unsigned.
  static std::string magnitude(int64_t v) {
    return std::to_string(v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v));
  }

  // A term of an Int sum without its sign: 2*s0, s0*s1, s0.
  void magnitude_term(const Node* t, bool& negative) {
    negative = false;
    if (t->op == Op::Mul && t->args[0]->is_const() && t->type == Type::Int) {
      const int64_t c = t->args[0]->value.i;
      negative = c < 0;
      if (c != 1 && c != -1) out_ += magnitude(c) + "*";
      for (size_t i = 1; i < t->args.size(); ++i) {
        if (i > 1) out_ += '*';
        print(t->args[i], kUnary);
      }
      return;
    }
    if (t->is_const() && t->type == Type::Int && t->value.i < 0) {
      negative = true;
      out_ += magnitude(t->value.i);
      return;
    }
    print(t, kProduct);
  }

  // Terms of one side of a relation, each with a sign, then the constant c (>= 0, or any value when
  // there are no terms); an empty side prints 0.
  void side(const std::vector<std::pair<const Node*, bool>>& terms, int64_t constant) {
    bool first = true;
    for (auto& [t, flip] : terms) {
      std::string saved;
      std::swap(saved, out_);
      bool neg;
      magnitude_term(t, neg);
      std::string text;
      std::swap(text, out_);
      out_ = std::move(saved);
      const bool minus = neg != flip;
      out_ += first ? (minus ? "-" : "") : (minus ? " - " : " + ");
      out_ += text;
      first = false;
    }
    if (constant != 0 || first) {
      if (first) out_ += std::to_string(constant);
      else out_ += (constant < 0 ? " - " : " + ") + magnitude(constant);
    }
  }

  // e (op) 0 with e a canonical sum, printed with positive terms left and negated ones right.
  void relation(const Node* n) {
    const Node* e = n->args[0];
    std::vector<const Node*> terms(e->args.begin(), e->args.end());
    if (e->op != Op::Add) terms.assign(1, e);
    int64_t c = 0;
    std::vector<std::pair<const Node*, bool>> pos, neg;
    for (const Node* t : terms) {
      if (t->is_const()) { c = t->value.i; continue; }
      const bool negative = t->op == Op::Mul && t->args[0]->is_const() && t->args[0]->value.i < 0;
      (negative ? neg : pos).push_back({t, negative});
    }
    const char* rel = n->op == Op::Le ? " <= " : n->op == Op::Eq ? " == " : " != ";
    if (pos.empty()) {  // c - N <= 0  reads  N >= c
      side(neg, 0);
      out_ += n->op == Op::Le ? " >= " : rel;
      out_ += std::to_string(c);
    } else if (neg.empty()) {  // P + c <= 0  reads  P <= -c
      side(pos, 0);
      out_ += rel;
      out_ += (c > 0 ? "-" : "") + magnitude(c);
    } else {  // P + c <= N, the constant on the side where it is positive
      side(pos, c > 0 ? c : 0);
      out_ += rel;
      side(neg, 0);  // neg is not empty here, so the constant follows its terms
      if (c < 0) out_ += " + " + magnitude(c);
    }
  }

  void list(const char* fn, const std::vector<Node*>& args) {
    out_ += fn;
    out_ += '(';
    for (size_t i = 0; i < args.size(); ++i) {
      if (i) out_ += ", ";
      print(args[i], kLogic);
    }
    out_ += ')';
  }

  void infix(const Node* n, const char* op, int left, int right) {
    print(n->args[0], left);
    out_ += op;
    print(n->args[1], right);
  }

  void body(const Node* n) {
    switch (n->op) {
      case Op::Const: number(n); return;
      case Op::Symbol: out_ += env_.symbols()[static_cast<size_t>(n->value.i)].name; return;
      case Op::Add:
        if (n->type == Type::Int) {
          std::vector<std::pair<const Node*, bool>> terms;
          int64_t c = 0;
          for (const Node* t : n->args) t->is_const() ? void(c = t->value.i) : terms.push_back({t, false});
          // Positive terms first, as one writes them: s0*s1 - s1, not -s1 + s0*s1.
          std::stable_partition(terms.begin(), terms.end(), [](const std::pair<const Node*, bool>& t) {
            return !(t.first->op == Op::Mul && t.first->args[0]->is_const() && t.first->args[0]->value.i < 0);
          });
          side(terms, c);
        } else {
          for (size_t i = 0; i < n->args.size(); ++i) {
            if (i) out_ += " + ";
            print(n->args[i], kProduct);
          }
        }
        return;
      case Op::Mul:
        for (size_t i = 0; i < n->args.size(); ++i) {
          const Node* a = n->args[i];
          const bool negation = i == 0 && a->is_const() && a->type == Type::Int && a->value.i == -1;
          if (negation) { out_ += '-'; continue; }
          if (i && !(i == 1 && prec(n) == kUnary)) out_ += '*';
          print(a, i == 0 ? kProduct : kUnary);
        }
        return;
      case Op::FloorDiv: infix(n, "//", kProduct, kUnary); return;
      case Op::Mod: infix(n, " % ", kProduct, kUnary); return;
      case Op::TrueDiv: infix(n, "/", kProduct, kUnary); return;
      case Op::Pow: infix(n, "**", kAtom, kUnary); return;
      case Op::Eq:
      case Op::Ne:
      case Op::Le:
        if (n->args.size() == 1) { relation(n); return; }
        [[fallthrough]];
      case Op::Lt: {
        const char* op = n->op == Op::Eq ? " == " : n->op == Op::Ne ? " != " : n->op == Op::Lt ? " < " : " <= ";
        infix(n, op, kSum, kSum);
        return;
      }
      case Op::Not: out_ += "not "; print(n->args[0], kNot); return;
      case Op::And:
      case Op::Or:
        for (size_t i = 0; i < n->args.size(); ++i) {
          if (i) out_ += n->op == Op::And ? " and " : " or ";
          print(n->args[i], kNot);
        }
        return;
      case Op::Min: list("min", n->args); return;
      case Op::Max: list("max", n->args); return;
      case Op::Ite: list("ite", n->args); return;
      case Op::ToFloat: list("float", n->args); return;
      case Op::ToInt: list("int", n->args); return;
    }
  }

  const ShapeEnv& env_;
  std::string out_;
};

}  // namespace

std::string ShapeEnv::to_string(const Node* n) const {
  std::lock_guard<std::recursive_mutex> lock(mu_);  // the printer reads symbols_
  Printer p(*this);
  p.print(n, kLogic);
  return p.take();
}

}  // namespace ct::sym
