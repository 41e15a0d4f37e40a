"""What the reference scripts share: the gradients they make to order (the C++ tests compute the same numbers,
tests/support/ReferenceVectors.hpp), fp32 values written short, and the atomic write of a fixture."""
import json
import os


def grad_value(worker, step, tensor, index):
    """Integer hash -> a multiple of 1/1024 in [-1000/1024, 1000/1024], exact in fp32."""
    x = (worker * 1_000_003 + step * 10_007 + tensor * 101 + index * 7919 + 12_345) & 0xFFFFFFFF
    x = (x * 2_654_435_761) & 0xFFFFFFFF
    x ^= x >> 15
    return ((x % 2001) - 1000) / 1024.0


def short(values):
    """fp32 values as the shortest decimals that read back as the same fp32 (9 significant digits always do)."""
    return [float(f"{v:.9g}") for v in values]


def write_fixture(path, doc):
    """`doc` as compact JSON at `path`, written to a temporary file and renamed, so a killed run leaves no half file."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    os.replace(tmp, path)
