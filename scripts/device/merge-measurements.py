#!/usr/bin/env python3
"""Merges a device run's `ccsim bench-compute --format json` document with the PyTorch run of the same device
(scripts/device/torch_compute_bench.py) into the measurement document `ccsim bench-compute --compare` reads: the
FlashAttention and cuDNN attention rows become `attention`, the whole-layer timings (built with the FlashAttention
backend) `layers`, each with the torch run's versions as its
source. Times are rounded to 4 significant digits (the trials' spread is wider) to keep the file small.

A second PyTorch run with only its layer section and `--layer-backend CUDNN_ATTENTION` adds the same layers built with
cuDNN's attention (CUDNN_LAYERS.json).

Usage: scripts/device/merge-measurements.py BENCH_COMPUTE.json TORCH.json OUT.json [CUDNN_LAYERS.json]"""
import json
import os
import sys


def sig(x, digits=4):
    return float(f"{x:.{digits}g}")


def layer_rows(torch, backend):
    rows = []
    for r in torch["sections"]["layer"]["results"]:
        if "fwd_bwd_ms" not in r:
            continue
        c = r["config"]
        rows.append({"hidden": c["hidden"], "heads": c["heads"], "ffn": c["ffn"], "seq": c["seq"],
                     "micro_batch": c["micro_batch"], "attention_backend": backend,
                     "forward_us": sig(r["forward_ms"] * 1e3), "forward_backward_us": sig(r["fwd_bwd_ms"] * 1e3)})
    return rows


def main(bench_path, torch_path, out_path, cudnn_layers_path=None):
    bench = json.load(open(bench_path))
    torch = json.load(open(torch_path))
    source = (f"scripts/device/torch_compute_bench.py on {torch['device']} (torch {torch['torch']}, CUDA "
              f"{torch['cuda']}, cuDNN {torch['cudnn']}, driver {torch['driver']}): median of CUDA-event timings")
    for row in bench["gemms"]:
        row.pop("launches", None)
        for key in ("us", "tflops"):
            if key in row:
                row[key] = sig(row[key])
    for row in bench["elementwise"]:
        row["us"], row["GBps"] = sig(row["us"]), sig(row["GBps"])
    # Each attention shape under PyTorch's FlashAttention backend (SDPBackend.FLASH_ATTENTION) and under cuDNN's fused
    # attention (SDPBackend.CUDNN_ATTENTION, what Transformer Engine runs for Megatron-Core on Hopper).
    attention = []
    for r in torch["sections"]["flash_attention"]["results"]:
        c = r["config"]
        shape = {"batch": c["batch"], "heads": c["heads"], "seq": c["seq"], "head_dim": c["head_dim"]}
        for backend, t in (("flash", r), ("cudnn", r.get("cudnn_attention") or {})):
            if "forward_ms" in t and "backward_ms" in t:
                attention.append({**shape, "backend": backend, "forward_us": sig(t["forward_ms"] * 1e3),
                                  "backward_us": sig(t["backward_ms"] * 1e3)})
    layers = layer_rows(torch, "flash")
    if cudnn_layers_path:
        layers += layer_rows(json.load(open(cudnn_layers_path)), "cudnn")
    bench["source"] += "; attention and layers: " + source
    bench["attention"], bench["layers"] = attention, layers
    tmp = out_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(bench, f, separators=(",", ":"))
        f.write("\n")
    os.replace(tmp, out_path)


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    main(*sys.argv[1:])
