"""Writes the seed corpus in corpus/sequence/ for fuzz_sequence: byte strings the target decodes
into C ABI calls (see fuzz_sequence.c). No dependencies:

    python3 tests/fuzz/corpus/make_sequence_corpus.py

Each seed starts by creating a few tensors (command byte 0, see fuzz_exercise) so the calls after
it have handles to work on, then continues with bytes from a fixed pseudo-random stream. Which
operator a byte pair picks depends on the registry, so the seeds are starting points, not tests of
one operator; the files libFuzzer keeps while fuzzing are better ones. The files are checked in;
CTest replays them (fuzz_sequence_corpus) and libFuzzer starts from them.
"""
import os
import random

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sequence")

# create: command 0, how, dtype, ndim, sizes..., then the data bytes or values, then the slot.
FLOAT32, INT64, BOOL = 8, 5, 0


def create(how, dtype, sizes, slot, fill=b""):
    return bytes([0, how, dtype, len(sizes)] + list(sizes)) + fill + bytes([slot])


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = random.Random(20261129)
    start = (create(2, FLOAT32, [2, 3], 0) + create(6, FLOAT32, [3], 1) + create(4, FLOAT32, [], 2)
             + create(2, INT64, [2, 2], 3) + create(2, BOOL, [3], 4))
    for k in range(24):
        body = bytes(rng.randrange(256) for _ in range(rng.choice([16, 48, 128, 256])))
        with open(os.path.join(OUT, f"random_{k:02d}"), "wb") as f:
            f.write(start + body if k % 4 else body)
    # A leaf that requires grad, then backward from it (refused: four elements and no grad).
    grad = (create(6, FLOAT32, [4], 0) + bytes([5, 0, 0, 1]) + bytes([5, 1, 0]) * 2)
    with open(os.path.join(OUT, "requires_grad_backward"), "wb") as f:
        f.write(grad)


if __name__ == "__main__":
    main()
