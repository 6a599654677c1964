#!/usr/bin/env python3
"""make_digits.py - writes digits.safetensors from digits.csv.gz (see README.md here).

The examples in every language read the safetensors file with ctorch's checkpoint API, so none of
them needs a gzip or CSV reader: "pixels" is uint8 [1797, 64] (0..16) and "labels" int64 [1797].
The file is written with the standard library only, laid out as the safetensors format says.
"""

import gzip
import json
import pathlib
import struct

HERE = pathlib.Path(__file__).resolve().parent


def main():
    rows = [list(map(int, line.split(","))) for line in gzip.open(HERE / "digits.csv.gz", "rt") if line.strip()]
    pixels = bytes(v for row in rows for v in row[:64])
    labels = b"".join(struct.pack("<q", row[64]) for row in rows)
    header = {
        "__metadata__": {"source": "UCI Optical Recognition of Handwritten Digits, test set (CC BY 4.0)"},
        "labels": {"dtype": "I64", "shape": [len(rows)], "data_offsets": [0, len(labels)]},
        "pixels": {"dtype": "U8", "shape": [len(rows), 64], "data_offsets": [len(labels), len(labels) + len(pixels)]},
    }
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned
    (HERE / "digits.safetensors").write_bytes(struct.pack("<Q", len(text)) + text + labels + pixels)


if __name__ == "__main__":
    main()
