"""Writes the seed corpus in corpus/checkpoint/: small safetensors files from the reference writer
(safetensors.torch) and by hand, valid and not. Run once with the safetensors package installed:

    python3 tests/fuzz/corpus/make_checkpoint_corpus.py

The files are checked in; CTest replays them (fuzz_checkpoint_corpus) and libFuzzer starts from them.
"""
import os
import struct

import torch
from safetensors.torch import save

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkpoint")


def raw(header, data=b""):
    return struct.pack("<Q", len(header)) + header + data


def main():
    os.makedirs(OUT, exist_ok=True)
    files = {
        "reference_mixed": save({"w": torch.arange(6, dtype=torch.float32).reshape(2, 3),
                                 "b": torch.tensor([1, 2], dtype=torch.int64),
                                 "m": torch.tensor([True, False]),
                                 "h": torch.tensor([0.5], dtype=torch.float16),
                                 "g": torch.tensor([1.25], dtype=torch.bfloat16)},
                                metadata={"format": "pt"}),
        "reference_scalar_and_empty": save({"s": torch.tensor(3.0, dtype=torch.float64),
                                            "e": torch.zeros(0, 4, dtype=torch.int32)}),
        "reference_empty": save({}),
        "reference_ints": save({"i8": torch.tensor([-1], dtype=torch.int8), "u8": torch.tensor([255], dtype=torch.uint8),
                                "i16": torch.tensor([-2], dtype=torch.int16)}),
        "hand_unaligned": raw(b'{"p":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'
                              b'"f":{"dtype":"F32","shape":[1],"data_offsets":[1,5]}}', b"\x01\x00\x00\x80\x3f"),
        "hand_unsupported_dtypes": raw(b'{"u":{"dtype":"U32","shape":[1],"data_offsets":[0,4]},'
                                       b'"q":{"dtype":"F4","shape":[2],"data_offsets":[4,5]}}', b"\x01\x00\x00\x00\x21"),
        "hand_escapes_and_spaces": raw(b'{ "a\\u00e9\\n" : {"shape":[1], "data_offsets":[0,1], "dtype":"BOOL"},'
                                       b' "__metadata__": {"k\\"": "v\\\\"} }    ', b"\x01"),
        "hand_metadata_null": raw(b'{"__metadata__":null}'),
        "bad_overlap": raw(b'{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},'
                           b'"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}}', b"\x00" * 3),
        "bad_gap": raw(b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}', b"\x00" * 2),
        "bad_huge_header_length": struct.pack("<Q", 2 ** 63) + b"{}",
        "bad_size_overflow": raw(b'{"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,0]}}'),
        "bad_dtype": raw(b'{"a":{"dtype":"F33","shape":[1],"data_offsets":[0,4]}}', b"\x00" * 4),
        "bad_nested": raw(b'{"a":' + b"[" * 64 + b"]" * 64 + b"}"),
        "bad_duplicate": raw(b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'
                             b'"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}', b"\x00" * 2),
        "bad_bool_byte": raw(b'{"b":{"dtype":"BOOL","shape":[1],"data_offsets":[0,1]}}', b"\x07"),
    }
    for name, data in files.items():
        with open(os.path.join(OUT, name + ".safetensors"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
