#!/usr/bin/env python3
"""Reference vectors from DeMo's own optimizer (github bloc97/DeMo, demo.py, class DeMo), for
tests/numerics/DemoParity_test.cpp.

Runs demo.DeMo on three CPU processes (gloo: its all-gather is the real one), with gradients made to order: each
parameter's loss is sum(param * G), so its gradient is G, a value both this script and the test compute from integers
(reference_common.grad_value). The tensors' shapes exercise the chunking: a matrix of two 64 x 64 chunks, one of
48 x 20 chunks, a vector of 50-element chunks, one shorter than a chunk (all sent), and a matrix with a prime row count
(chunks of 1 x 5, all sent). Records the sign DeMo stepped each parameter by at every step (p.grad after the step: "+",
"-" or "0"), the parameters after the last step (rank 0's; the script checks that all ranks agree) and rank 0's
momentum (state["delta"]) then.

Not run by the test suite (it needs torch, einops and DeMo's file, which is not part of ccsim). Regenerate with:
    git clone https://github.com/bloc97/DeMo /tmp/DeMo    # commit 0e48145d702b25f83055e11d9585a9c11bcfe154
    python3 scripts/reference/demo-optimizer.py /tmp/DeMo/demo.py tests/data/reference/demo-optimizer.json
"""
import importlib.util
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from reference_common import grad_value, short, write_fixture

WORKERS = 3
STEPS = 5
SETTINGS = {"lr": 0.01, "weight_decay": 0.1, "compression_decay": 0.999, "compression_topk": 32,
            "compression_chunk": 64}
SHAPES = [("whole", (64, 128)), ("partial", (96, 20)), ("vector", (200,)), ("short", (7,)), ("prime", (67, 5))]


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def load_demo(path):
    spec = importlib.util.spec_from_file_location("demo", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def worker_main(rank, port, demo_path, out_path):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=WORKERS)
    demo = load_demo(demo_path)
    params = [torch.nn.Parameter(torch.tensor([grad_value(99, 0, t, i) for i in range(numel(s))],
                                              dtype=torch.float32).reshape(s)) for t, (_, s) in enumerate(SHAPES)]
    opt = demo.DeMo(params, **SETTINGS)
    signs = []
    for step in range(1, STEPS + 1):
        opt.zero_grad()
        loss = sum((p * torch.tensor([grad_value(rank, step, t, i) for i in range(numel(s))],
                                     dtype=torch.float32).reshape(s)).sum()
                   for t, (p, (_, s)) in enumerate(zip(params, SHAPES)))
        loss.backward()
        opt.step()
        signs.append(["".join("+" if v > 0 else "-" if v < 0 else "0" for v in p.grad.reshape(-1).tolist())
                      for p in params])
    after = [short(p.detach().reshape(-1).tolist()) for p in params]
    deltas = [short(opt.demo_state[p]["delta"].reshape(-1).tolist()) for p in params]
    with open(out_path + "." + str(rank), "w") as f:
        json.dump({"signs": signs, "params": after, "delta": deltas, "sent_bytes": opt.data_transmit}, f)
    dist.barrier()  # no process leaves while another still talks (gloo aborts otherwise)
    dist.destroy_process_group()


def main():
    demo_path, out = sys.argv[1], sys.argv[2]
    mp.spawn(worker_main, args=(20_000 + (os.getpid() * 7) % 20_000, demo_path, out), nprocs=WORKERS, join=True)
    runs = []
    for rank in range(WORKERS):
        with open(out + "." + str(rank)) as f:
            runs.append(json.load(f))
        os.remove(out + "." + str(rank))
    for r in runs[1:]:
        if r["params"] != runs[0]["params"] or r["signs"] != runs[0]["signs"]:
            sys.exit("the workers' parameters differ: DeMo's update is not the same on every rank")
    write_fixture(out, {
        "source": "torch " + torch.__version__ + ", bloc97/DeMo demo.py (commit 0e48145) class DeMo, gloo, " +
                  str(WORKERS) + " processes (scripts/reference/demo-optimizer.py)",
        "workers": WORKERS, "steps": STEPS, "settings": SETTINGS,
        "tensors": [{"name": n, "shape": list(s)} for n, s in SHAPES],
        "signs": runs[0]["signs"],
        "params_after_last": runs[0]["params"],
        "delta_after_last": runs[0]["delta"],
        "sent_bytes_per_step": runs[0]["sent_bytes"]})


if __name__ == "__main__":
    main()
