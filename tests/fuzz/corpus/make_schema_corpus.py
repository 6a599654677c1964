"""Writes the seed corpus in corpus/schema/ for fuzz_schema: schemas of built-in operators, read
from a built libctorch (ct_op_registry_json, through codegen/registry.py) and moved into the
namespace "fz", plus hostile ones written by hand. Run from the repository root after a build:

    python3 tests/fuzz/corpus/make_schema_corpus.py [build/src/libctorch.so]

The files are checked in; CTest replays them (fuzz_schema_corpus) and libFuzzer starts from them.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "codegen"))
from registry import builtin_operators  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema")

HOSTILE = {
    "empty": b"",
    "only_namespace": b"::",
    "no_namespace": b"scale(Tensor x) -> Tensor",
    "unclosed_arguments": b"fz::a(Tensor x",
    "no_returns": b"fz::a(Tensor x) ->",
    "deep_nesting": b"fz::a(" + b"Tensor(" * 200 + b"a" + b")" * 200 + b" x) -> Tensor",
    "many_arguments": b"fz::many(" + b", ".join(b"int a%d=%d" % (i, i) for i in range(300)) + b") -> Tensor",
    "huge_numbers": b"fz::huge(int a=99999999999999999999999999, float b=1e999, int[3] c=[-9223372036854775809]) -> Tensor",
    "hex_and_signs": b"fz::hex(int a=0x7fffffffffffffff, float b=-.5e-3, float c=+nan, float d=-inf) -> Tensor",
    "unterminated_string": b"fz::s(str mode='valid) -> Tensor",
    "string_with_specials": b"fz::q(str a='\"\\\\', str b=',)->(') -> Tensor",
    "unicode_names": "fz::\u00e9t\u00e9(Tensor \u00fc) -> Tensor".encode(),
    "unicode_string_default": "fz::u(str s='\u2603\U0001f600') -> Tensor".encode(),
    "whitespace_everywhere": b" fz :: w . o ( Tensor \t x , * , float  y = 2.0 ) -> ( Tensor a , Tensor b ) ",
    "kwarg_markers": b"fz::k(*, *, Tensor x, *) -> ()",
    "alias_annotations": b"fz::al_(Tensor(a!) self, Tensor(b) other) -> Tensor(a!)",
    "list_sizes": b"fz::l(int[18446744073709551616] a, Tensor[] b, SymInt[2] c=1) -> Tensor[]",
    "bad_list_type": b"fz::bl(float[] a) -> Tensor",
    "wrong_kind_defaults": b"fz::wk(Tensor x=1, bool b=3, ScalarType t='s', Device d=None, int[] l=True) -> Tensor",
    "optional_everything": b"fz::o(Tensor? a=None, int? b=None, Scalar? c=None, Generator? g=None) -> Tensor",
    "trailing_text": b"fz::t(Tensor x) -> Tensor garbage",
    "nul_inside": b"fz::n(Tensor x) -> Tensor\x00 trailing",
}


def main():
    library = sys.argv[1] if len(sys.argv) > 1 else "build/src/libctorch.so"
    os.makedirs(OUT, exist_ok=True)
    _, ops = builtin_operators(library)
    # One schema per distinct set of argument types, so the seeds cover the type grammar cheaply.
    seen = set()
    for op in ops:
        key = tuple(sorted({a["type"] for a in op["arguments"]} | {r["type"] for r in op["returns"]}))
        if key in seen:
            continue
        seen.add(key)
        name = op["name"] + ("." + op["overload"] if op["overload"] else "")
        with open(os.path.join(OUT, "builtin_" + name.replace(".", "_")), "wb") as f:
            f.write(("fz::" + op["schema"]).encode())
        if len(seen) == 24:
            break
    for name, text in HOSTILE.items():
        with open(os.path.join(OUT, "hostile_" + name), "wb") as f:
            f.write(text)


if __name__ == "__main__":
    main()
