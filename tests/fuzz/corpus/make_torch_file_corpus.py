"""Writes the seed corpus in corpus/torch_file/: small files torch.save writes (state dicts, nested
checkpoints, views, every dtype, parameters, empty and 0-dim tensors), a file whose pickle names a
function (refused), and cut and flipped copies. Run once with torch installed:

    python3 tests/fuzz/corpus/make_torch_file_corpus.py

The files are checked in; CTest replays them (fuzz_torch_file_corpus) and libFuzzer starts from them.
"""
import collections
import io
import os
import pickle
import zipfile

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_file")


def saved(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


class Call:
    def __reduce__(self):
        return (print, ("a loader must not call this",))


def main():
    os.makedirs(OUT, exist_ok=True)
    x = torch.arange(12.0).reshape(3, 4)
    files = {
        "state_dict": saved(torch.nn.Linear(3, 2).state_dict()),
        "checkpoint": saved({"model": torch.nn.BatchNorm1d(2).state_dict(), "epoch": 3, "lr": 0.5,
                             "names": ["a", "\u00e9\x00"], "flags": (True, None), 7: {}}),
        "views": saved([x, x[1:, ::2], x.t(), x[2]]),
        "dtypes": saved([torch.ones(2, 2, dtype=d) for d in (torch.bool, torch.uint8, torch.int8, torch.int16,
                                                             torch.int32, torch.int64, torch.float16, torch.bfloat16,
                                                             torch.float32, torch.float64)]),
        "parameter": saved({"p": torch.nn.Parameter(torch.ones(3)), "g": torch.zeros(2, requires_grad=True)}),
        "empty_and_scalar": saved([torch.zeros(0, 3), torch.tensor(2.5), torch.tensor([], dtype=torch.int64)]),
        "nan_and_big": saved({"nan": float("nan"), "inf": float("-inf"), "big": 2 ** 62, "neg": -(2 ** 40)}),
    }
    calls = io.BytesIO()
    with zipfile.ZipFile(calls, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", pickle.dumps({"x": Call()}, protocol=2))
        z.writestr("archive/version", "3\n")
    files["calls_a_function"] = calls.getvalue()
    good = files["state_dict"]
    files["state_dict_cut_half"] = good[:len(good) // 2]
    files["state_dict_cut_tail"] = good[:-7]
    flipped = bytearray(good)
    flipped[len(good) // 3] ^= 0x40
    files["state_dict_flipped"] = bytes(flipped)
    for name, data in files.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
