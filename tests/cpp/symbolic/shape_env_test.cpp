// ShapeEnv: simplification, ranges, guards, runtime assertions and evaluation, plus a property test
// that simplified expressions evaluate like the trees they came from.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "symbolic/arith.h"
#include "symbolic/shape_env.h"
#include "symbolic/sym_int.h"

using ct::SymBool;
using ct::SymInt;
using ct::sym::BoundValue;
using ct::sym::ShapeEnv;

namespace {

// One env per test, released at the end.
struct Env {
  ShapeEnv* env = ShapeEnv::create();
  ~Env() { env->release(); }
  SymInt symbol(int64_t hint, int64_t min = 0, int64_t max = ct::sym::Range::kPosInf, const char* name = "") {
    return SymInt(env->create_symbol(hint, min, max, name));
  }
  std::string text(SymInt s) const { return ct::str(s); }
  std::vector<BoundValue> binding(std::initializer_list<int64_t> values) const {
    std::vector<BoundValue> b;
    for (int64_t v : values) b.push_back(BoundValue{v});
    return b;
  }
};

ct_status status_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ct::Error& e) {
    return e.status();
  }
  return CT_OK;
}

}  // namespace

TEST(ShapeEnv, MaxWithOneFoldsForPositiveSymbol) {
  Env e;
  const SymInt s0 = e.symbol(8, 1, 1024, "batch");
  EXPECT_EQ(ct::sym_max(s0, 1).raw(), s0.raw());
  EXPECT_EQ(ct::sym_min(s0, 0).maybe_int(), 0);
  const SymInt s1 = e.symbol(3, 0);
  EXPECT_TRUE(ct::sym_max(s1, 1).is_symbolic()) << "s1 may be 0, so max(s1, 1) stays";
  EXPECT_EQ(e.text(ct::sym_max(s1, 1)), "max(s1, 1)");
}

TEST(ShapeEnv, DivisionRulesCancelExactFactors) {
  Env e;
  const SymInt s0 = e.symbol(8, 1);
  EXPECT_EQ((s0 / 1).raw(), s0.raw());
  EXPECT_EQ(((s0 * 4) / 4).raw(), s0.raw());
  EXPECT_EQ(((s0 * 4 + 2) / 4).raw(), s0.raw()) << "the remainder 2 lies in [0, 4)";
  EXPECT_EQ(((s0 * 4) % 4).maybe_int(), 0);
  EXPECT_EQ(((s0 * 6) / 3).raw(), (s0 * 2).raw());
  EXPECT_EQ(e.text(s0 / 4), "s0//4");
  const SymInt s1 = e.symbol(3, 1);
  EXPECT_EQ(e.text((8 * s0 * s1) / (2 * s0)), "4*s1") << "exact symbolic quotients cancel";
  EXPECT_EQ(((8 * s0 * s1) % (2 * s0)).maybe_int(), 0);
}

TEST(ShapeEnv, SumsAndProductsAreCanonical) {
  Env e;
  const SymInt a = e.symbol(2), b = e.symbol(3);
  EXPECT_EQ((a + b).raw(), (b + a).raw());
  EXPECT_EQ((a * b).raw(), (b * a).raw());
  EXPECT_EQ(((a + 1) + (b + 2)).raw(), (a + b + 3).raw());
  EXPECT_EQ((a - a).maybe_int(), 0);
  EXPECT_EQ((2 * (a + 1)).raw(), (2 * a + 2).raw()) << "a constant factor distributes";
  EXPECT_EQ(e.text(2 * a + 1), "2*s0 + 1");
  EXPECT_EQ(e.text(a * b - b), "s0*s1 - s1");
}

TEST(ShapeEnv, SymSumIsOneNaryNode) {
  Env e;
  std::vector<SymInt> xs;
  for (int i = 0; i < 5; ++i) xs.push_back(e.symbol(i + 1));
  const SymInt s = ct::sym_sum(xs);
  EXPECT_EQ(s.node()->op, ct::sym::Op::Add);
  EXPECT_EQ(s.node()->args.size(), 5u);
  EXPECT_EQ(ct::sym_sum({1, 2, 3}).maybe_int(), 6) << "plain numbers add plainly";
}

TEST(ShapeEnv, FloorDivisionAndModuloOfNegativesFollowPython) {
  EXPECT_EQ((SymInt(-7) / 2).maybe_int(), -4);
  EXPECT_EQ((SymInt(-7) % 2).maybe_int(), 1);
  EXPECT_EQ((SymInt(7) % -2).maybe_int(), -1);
  EXPECT_EQ((SymInt(7) / -2).maybe_int(), -4);
  Env e;
  const SymInt s0 = e.symbol(5, -100, 100);
  const SymInt q = s0 / 2, r = s0 % 3;
  for (int64_t v : {-7, -6, -1, 0, 1, 7}) {
    EXPECT_EQ(e.env->eval_int(q.node(), e.binding({v})), ct::sym::py_floordiv(v, 2)) << v;
    EXPECT_EQ(e.env->eval_int(r.node(), e.binding({v})), ct::sym::py_mod(v, 3)) << v;
  }
}

TEST(ShapeEnv, RangesDecideComparisonsWithoutGuards) {
  Env e;
  const SymInt s0 = e.symbol(8, 2, 64);
  EXPECT_EQ((s0 >= 0).maybe_bool(), true);
  EXPECT_EQ((s0 == 1).maybe_bool(), false);
  EXPECT_EQ((s0 * 2 > 3).maybe_bool(), true);
  EXPECT_EQ(e.env->num_guards(), 0u);
}

TEST(ShapeEnv, BranchingRecordsOneDeduplicatedGuard) {
  Env e;
  const SymInt s0 = e.symbol(8, 0);
  EXPECT_TRUE(static_cast<bool>(s0 > 1));
  EXPECT_TRUE(static_cast<bool>(1 < s0)) << "the same fact, written the other way";
  EXPECT_TRUE(static_cast<bool>(s0 >= 2));
  EXPECT_EQ(e.env->num_guards(), 1u);
  EXPECT_EQ(e.env->guard_requests(), 1u) << "after the first guard s0 >= 2 narrows the range, so the rest fold";
  EXPECT_EQ(ct::str(SymBool(e.env->guards()[0])), "s0 >= 2");
}

TEST(ShapeEnv, GuardIntPinsTheSymbol) {
  Env e;
  const SymInt s0 = e.symbol(8, 1);
  EXPECT_EQ(s0.guard_int(), 8);
  EXPECT_EQ(e.env->num_guards(), 1u);
  EXPECT_EQ((s0 + 1).maybe_int(), 9) << "the guard s0 == 8 narrows the range to one point";
}

TEST(ShapeEnv, BuildersRecordNoGuards) {
  Env e;
  const SymInt a = e.symbol(4, 0), b = e.symbol(6, 0);
  ct::sym_max(a, b);
  ct::sym_min(a, b);
  ct::sym_sum({a, b, 3});
  ct::sym_ite(a < b, a, b);
  ct::sym_not(a == b);
  ct::sym_int(ct::sym_float(a));
  EXPECT_EQ(e.env->num_guards(), 0u);
  EXPECT_EQ(e.env->guard_requests(), 0u);
}

TEST(ShapeEnv, UnbackedBranchingIsAGuardErrorButCheckBecomesARuntimeAssertion) {
  Env e;
  const SymInt u = SymInt(e.env->create_unbacked(ct::sym::Type::Int));
  EXPECT_EQ(e.text(u), "u0");
  EXPECT_EQ(status_of([&] { static_cast<void>(static_cast<bool>(u > 3)); }), CT_ERROR_GUARD);
  CT_SYM_CHECK(u >= 0, CT_ERROR_INVALID_ARGUMENT, "u0 must be a size");
  EXPECT_EQ(e.env->runtime_asserts().size(), 1u);
  EXPECT_EQ((u >= 0).maybe_bool(), true) << "the assertion is assumed from then on";
  EXPECT_EQ(e.env->first_failing_guard(e.binding({5})), -1);
  EXPECT_EQ(e.env->first_failing_guard(e.binding({-1})), 0);
}

// A node's range is refreshed lazily: after assertions pin u0 to 0, a product made before them
// still caches a wide range, and known_int refreshes it to tell the one value (what program files
// write for such a size; found by fuzz_program).
TEST(ShapeEnv, KnownIntSeesFactsRecordedAfterANodeWasMade) {
  Env e;
  const SymInt u = SymInt(e.env->create_unbacked(ct::sym::Type::Int));
  const SymInt m = u * SymInt(-3);
  ASSERT_TRUE(m.is_symbolic());
  EXPECT_EQ(e.env->known_int(m.node()), std::nullopt);
  CT_SYM_CHECK(u >= 0, CT_ERROR_INVALID_ARGUMENT, "u0 must be a size");
  CT_SYM_CHECK(u <= 0, CT_ERROR_INVALID_ARGUMENT, "u0 must fit a dim of size 0");
  EXPECT_EQ(e.env->known_int(m.node()), std::optional<int64_t>(0));
  EXPECT_EQ(e.env->known_int(u.node()), std::optional<int64_t>(0));
  EXPECT_EQ(e.env->num_guards(), 0u) << "known_int records no guard";
}

TEST(ShapeEnv, SymbolsOfTwoEnvsDoNotMix) {
  Env e1, e2;
  const SymInt a = e1.symbol(2), b = e2.symbol(3);
  EXPECT_EQ(status_of([&] { a + b; }), CT_ERROR_INVALID_ARGUMENT);
}

TEST(ShapeEnv, HintOutsideRangeIsRefused) {
  Env e;
  EXPECT_EQ(status_of([&] { e.symbol(0, 1, 10); }), CT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(status_of([&] { e.symbol(5, 10, 1); }), CT_ERROR_INVALID_ARGUMENT);
}

TEST(ShapeEnv, IteEvaluatesOnlyTheChosenBranch) {
  Env e;
  const SymInt s = e.symbol(3, 0, 10);
  const SymInt x = ct::sym_ite(s == 0, SymInt(0), 100 / s);
  EXPECT_EQ(e.env->eval_int(x.node(), e.binding({0})), 0);
  EXPECT_EQ(e.env->eval_int(x.node(), e.binding({4})), 25);
}

// Property: for random expression trees over three symbols, the simplified node evaluates, under
// random bindings within the symbols' ranges, to what the tree computes with plain integers.
// Nothing branches, so no guard narrows a range while the trees are built.
TEST(ShapeEnvProperty, SimplifiedExpressionsEvaluateLikeTheirTrees) {
  std::mt19937_64 rng(20261125);
  const int64_t lo[3] = {0, 1, 2}, hi[3] = {40, 17, 9};
  for (int trial = 0; trial < 1000; ++trial) {
    Env e;
    SymInt syms[3];
    for (int k = 0; k < 3; ++k) syms[k] = e.symbol(lo[k] + static_cast<int64_t>(rng() % (hi[k] - lo[k] + 1)), lo[k], hi[k]);
    // A tree is a function of the binding, built together with its symbolic value.
    struct Tree {
      SymInt value;
      std::function<int64_t(const int64_t*)> eval;
    };
    std::function<Tree(int)> grow = [&](int depth) -> Tree {
      const unsigned pick = depth == 0 ? static_cast<unsigned>(rng() % 2) : static_cast<unsigned>(rng() % 11);
      if (pick == 0) {
        const int k = static_cast<int>(rng() % 3);
        return {syms[k], [k](const int64_t* v) { return v[k]; }};
      }
      if (pick == 1) {
        const int64_t c = static_cast<int64_t>(rng() % 9) - 3;
        return {SymInt(c), [c](const int64_t*) { return c; }};
      }
      Tree a = grow(depth - 1), b = grow(depth - 1);
      const int64_t k = 1 + static_cast<int64_t>(rng() % 5);
      auto ea = a.eval, eb = b.eval;
      switch (pick) {
        case 2: return {a.value + b.value, [=](const int64_t* v) { return ea(v) + eb(v); }};
        case 3: return {a.value - b.value, [=](const int64_t* v) { return ea(v) - eb(v); }};
        case 4: return {a.value * b.value, [=](const int64_t* v) { return ea(v) * eb(v); }};
        case 5: return {a.value / k, [=](const int64_t* v) { return ct::sym::py_floordiv(ea(v), k); }};
        case 6: return {a.value % k, [=](const int64_t* v) { return ct::sym::py_mod(ea(v), k); }};
        case 7: return {ct::sym_max(a.value, b.value), [=](const int64_t* v) { return std::max(ea(v), eb(v)); }};
        case 8: return {ct::sym_min(a.value, b.value), [=](const int64_t* v) { return std::min(ea(v), eb(v)); }};
        case 9:
          return {ct::sym_ite(a.value < b.value, a.value, b.value * k),
                  [=](const int64_t* v) { return ea(v) < eb(v) ? ea(v) : eb(v) * k; }};
        default: return {a.value * k + b.value, [=](const int64_t* v) { return ea(v) * k + eb(v); }};
      }
    };
    const Tree t = grow(4);
    ASSERT_EQ(e.env->num_guards(), 0u);
    for (int b = 0; b < 20; ++b) {
      int64_t v[3];
      for (int k = 0; k < 3; ++k) v[k] = lo[k] + static_cast<int64_t>(rng() % (hi[k] - lo[k] + 1));
      const int64_t want = t.eval(v);
      const int64_t got = t.value.is_symbolic() ? e.env->eval_int(t.value.node(), e.binding({v[0], v[1], v[2]}))
                                                : t.value.raw();
      ASSERT_EQ(got, want) << "trial " << trial << ": " << t.value << " at (" << v[0] << ", " << v[1] << ", " << v[2]
                           << ")";
    }
  }
}

// Property: every guard recorded while deciding random comparisons holds under the hints.
TEST(ShapeEnvProperty, RecordedGuardsHoldForTheHints) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    Env e;
    const int64_t h0 = 1 + static_cast<int64_t>(rng() % 50), h1 = 1 + static_cast<int64_t>(rng() % 50);
    const SymInt a = e.symbol(h0, 1, 100), b = e.symbol(h1, 1, 100);
    const SymInt exprs[] = {a, b, a + b, a * 2 - b, a / 3, b % 4, ct::sym_max(a, b)};
    for (int k = 0; k < 8; ++k) {
      const SymInt x = exprs[rng() % 7], y = exprs[rng() % 7];
      switch (rng() % 4) {
        case 0: static_cast<void>(static_cast<bool>(x < y)); break;
        case 1: static_cast<void>(static_cast<bool>(x == y)); break;
        case 2: static_cast<void>(static_cast<bool>(x >= y + 3)); break;
        default: static_cast<void>(x.guard_int()); break;
      }
    }
    EXPECT_EQ(e.env->first_failing_guard(e.binding({h0, h1})), -1) << e.env->to_json();
  }
}

// A conjunction lists its conditions in the order their nodes were made; sym_all makes them in the
// order written, whatever the compiler.
TEST(ShapeEnv, SymAllBuildsItsConditionsInTheOrderWritten) {
  Env e;
  const SymInt most = e.symbol(8, 2);
  const SymInt n(e.env->create_unbacked(ct::sym::Type::Int));
  const SymInt m(e.env->create_unbacked(ct::sym::Type::Int));
  EXPECT_EQ(ct::str(ct::sym_all({n <= most, n >= 0})), "u0 <= s0 and u0 >= 0");
  EXPECT_EQ(ct::str(ct::sym_all({m >= 0, m <= most})), "u1 >= 0 and u1 <= s0");
  EXPECT_EQ(ct::str(ct::sym_all({SymBool(true), m >= 1})), "u1 >= 1");
}

// Coefficients at the edge of int64 (a hostile program file, or arithmetic that doubles 2^62):
// MIN / -1 neither traps nor folds, a gcd of 2^63 does not flip a relation, a saturated range is
// not a point, and MIN prints as a number.
TEST(ShapeEnv, MinimumCoefficientsNeitherTrapNorMisfold) {
  Env e;
  const SymInt s0 = e.symbol(8, 0), s1 = e.symbol(8, 2);
  SymInt a = s0 * s1 * (-(int64_t{1} << 62));
  a = a + a;  // coefficient INT64_MIN
  EXPECT_EQ(e.text(a), "-9223372036854775808*s0*s1");
  EXPECT_EQ(status_of([&] { (void)(a / (-s1)); }), CT_OK);  // exact_quotient once divided MIN by -1
  EXPECT_EQ(status_of([&] { (void)(a % (-s1)); }), CT_OK);
  const SymBool le = (a + 5) <= 0;  // at s0 = 0 this is 5 <= 0
  EXPECT_FALSE(e.env->eval_bool(le.node(), e.binding({0, 2})));
  EXPECT_EQ(ct::sym::gcd(INT64_MIN, 0), 1);
  EXPECT_EQ(ct::sym::gcd(INT64_MIN, 6), 2);
}

TEST(ShapeEnv, ASaturatedRangeIsNotAConstant) {
  Env e;
  const SymInt s = e.symbol(8, 2, 64);
  const SymInt big = s * (int64_t{1} << 62);  // every value overflows: the range saturates at +inf
  EXPECT_TRUE(big.is_symbolic()) << "folded to " << e.text(big);
}
