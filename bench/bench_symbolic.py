"""bench_symbolic.py - ctorch's ShapeEnv beside sympy and Python guard functions, one table from one run.

    /usr/bin/python3 bench/bench_symbolic.py [build/bench/bench_symbolic]

ctorch's side is the C program bench_symbolic (through the C ABI); this script builds the same
workload (described in bench_symbolic.c) with sympy, the expression engine PyTorch's ShapeEnv is
built on, and times the guard check the way a torch.compile guard function runs it: one Python
boolean expression over the sizes. Medians of 7 runs (3 for the slow sympy chain). Ratios are
anchor time / ctorch time (higher is better for ctorch). No assertions on time (DESIGN.md §13); the
target printed is the issue's: under 1 us per guard check.
"""

import statistics
import subprocess
import sys
import time

import sympy

SYMBOLS, TERMS, GUARDS = 16, 10000, 1000


def median_us(fn, reps=7):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def sympy_side():
    s = sympy.symbols(f"s0:{SYMBOLS}", integer=True, positive=True)
    hints = {s[k]: k + 2 for k in range(SYMBOLS)}
    out = {}
    terms = []

    def build_terms():
        terms.clear()
        terms.extend((i % 7 + 1) * s[i % SYMBOLS] * s[(3 * i + 1) % SYMBOLS] for i in range(TERMS))

    out["build_terms_us"] = median_us(build_terms)
    nary = []
    out["sum_nary_us"] = median_us(lambda: nary.append(sympy.Add(*terms)))

    def chain():
        e = sympy.Integer(0)
        for t in terms:
            e = e + t
        return e

    out["sum_chain_us"] = median_us(chain, reps=3)
    out["sum_at_hints"] = int(nary[-1].subs(hints))

    guards = []

    def record():
        guards.clear()
        for i in range(GUARDS):
            a, b = i % SYMBOLS, (i + 7) % SYMBOLS
            coeff = i % 5 + 1
            bound = coeff * (a + 2) + (b + 2) + i
            g = coeff * s[a] + s[b] <= bound
            assert bool(g.subs(hints))  # what branching on it asks of the hints
            guards.append(g)

    out["record_guards_us"] = median_us(record)
    # A torch.compile-style guard function: every guard as Python source in one lambda.
    source = "lambda " + ", ".join(f"s{k}" for k in range(SYMBOLS)) + ": " + " and ".join(
        f"({sympy.pycode(g)})" for g in guards)
    check = eval(compile(source, "<guards>", "eval"))
    values = [k + 2 for k in range(SYMBOLS)]
    assert check(*values)
    n = 2000
    out["check_guards_us"] = median_us(lambda: [check(*values) for _ in range(n)]) / n
    return out


def ctorch_side(exe):
    text = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == "result":
            name, _, v = value.partition(" ")
            out["result_" + name] = v
        else:
            out[key] = float(value)
    return out


def main():
    exe = sys.argv[1] if len(sys.argv) > 1 else "build/bench/bench_symbolic"
    ct = ctorch_side(exe)
    sp = sympy_side()
    if int(ct["result_sum_at_hints"]) != sp["sum_at_hints"]:
        sys.exit(f"bench_symbolic: ctorch's sum is {ct['result_sum_at_hints']} at the hints, sympy's "
                 f"{sp['sum_at_hints']}")
    print(f"ShapeEnv: {SYMBOLS} symbols, {TERMS:,} product terms, {GUARDS:,} guards "
          f"(sympy {sympy.__version__}, Python {sys.version.split()[0]})")
    print(f"{'measurement':<44}{'ctorch':>12}{'anchor':>14}{'ratio':>9}  anchor")
    rows = [
        ("build 10,000 terms c*si*sj", "build_terms_us", "sympy Mul"),
        ("sum them as one n-ary node (sym_sum)", "sum_nary_us", "sympy.Add(*terms)"),
        ("sum them by 9,999 binary adds", "sum_chain_us", "sympy e = e + t"),
        ("record 1,000 guards (build, decide at hints)", "record_guards_us", "sympy Le + subs"),
        ("check 1,000 guards against a binding", "check_guards_us", "Python guard lambda"),
    ]
    for label, key, anchor in rows:
        print(f"{label:<44}{ct[key]:>10.1f}us{sp[key]:>12.1f}us{sp[key] / ct[key]:>8.1f}x  {anchor}")
    per_guard_ns = ct["check_guards_us"] / GUARDS * 1e3
    print(f"per guard check: ctorch {per_guard_ns:.0f} ns, Python lambda "
          f"{sp['check_guards_us'] / GUARDS * 1e3:.0f} ns (target: under 1000 ns)")
    print(f"the sum simplifies to {ct['result_sum'].count('*s') } terms: {ct['result_sum'][:72]}...")


if __name__ == "__main__":
    main()
