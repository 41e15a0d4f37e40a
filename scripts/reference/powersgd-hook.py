#!/usr/bin/env python3
"""Reference vectors from PyTorch's own PowerSGD DDP hook, for tests/numerics/PowerSgdParity_test.cpp.

Runs torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook.powerSGD_hook under DistributedDataParallel on three
CPU processes (gloo), with gradients made to order: each parameter's loss is sum(param * G), so its gradient is G,
a value both this script and the test compute from integers (reference_common.grad_value: k / 1024, exact in fp32). For each
matrix_approximation_rank it records the gradient DDP hands the optimizer at every step (rank 0's; all ranks agree)
and the Qs the hook drew for its first compressed step (torch.randn, captured by wrapping it), which the test feeds to
numerics::PowerSgd::start_from so both start from the same draw.

Not run by the test suite (it needs torch). Regenerate with a torch install:
    python3 scripts/reference/powersgd-hook.py tests/data/reference/powersgd-hook.json
"""
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as hook
from torch.nn.parallel import DistributedDataParallel as DDP

from reference_common import grad_value, short, write_fixture

WORKERS = 3
STEPS = 6
START_ITER = 2  # the hook's smallest with error feedback and warm start
RANKS = [1, 2, 4]
# name -> shape; distinct shapes, so each captured draw belongs to one tensor. Which of them the hook compresses
# depends on the rank (its _should_compress), which the test derives itself.
SHAPES = [("weight", (16, 24)), ("bias", (16,)), ("small", (10, 4)), ("conv", (8, 3, 3, 3))]


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.params = torch.nn.ParameterList(torch.nn.Parameter(torch.zeros(s)) for _, s in SHAPES)

    def forward(self, targets):
        return sum((p * t).sum() for p, t in zip(self.params, targets))


def worker_main(rank_in_group, port, approx_rank, out_path):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank_in_group, world_size=WORKERS)
    torch.manual_seed(0)
    model = DDP(Model())
    state = hook.PowerSGDState(process_group=None, matrix_approximation_rank=approx_rank,
                               start_powerSGD_iter=START_ITER, use_error_feedback=True, warm_start=True,
                               random_seed=0)
    model.register_comm_hook(state, hook.powerSGD_hook)
    draws = []
    real_randn = torch.randn

    def recording_randn(*shape, **kw):
        t = real_randn(*shape, **kw)
        draws.append(t.clone())
        return t

    torch.randn = recording_randn
    reduced = []
    for step in range(STEPS):
        targets = [torch.tensor([grad_value(rank_in_group, step, ti, i) for i in range(numel(s))],
                                dtype=torch.float32).reshape(s) for ti, (_, s) in enumerate(SHAPES)]
        model.zero_grad()
        model(targets).backward()
        reduced.append([short(p.grad.detach().reshape(-1).tolist()) for p in model.module.params])
    torch.randn = real_randn
    if rank_in_group == 0:
        initial_q = {}
        for d in draws:
            m, r = d.shape[-2:]
            name = next(n for n, s in SHAPES if len(s) > 0 and numel(s) // s[0] == m)
            initial_q[name] = short(d.reshape(-1).tolist())  # m x rank, row-major
        with open(out_path, "w") as f:
            json.dump({"reduced": reduced, "initial_q": initial_q}, f)
    dist.barrier()  # no process leaves while another still talks (gloo aborts otherwise)
    dist.destroy_process_group()


def main():
    out = sys.argv[1]
    result = {"source": "torch " + torch.__version__ + ", torch/distributed/algorithms/ddp_comm_hooks/powerSGD_hook.py "
                        "powerSGD_hook under DDP, gloo, " + str(WORKERS) + " processes (scripts/reference/powersgd-hook.py)",
              "workers": WORKERS, "steps": STEPS, "start_iter": START_ITER, "min_compression_rate": 2,
              "tensors": [{"name": n, "shape": list(s)} for n, s in SHAPES], "runs": []}
    for i, r in enumerate(RANKS):
        part = out + ".rank" + str(r)
        mp.spawn(worker_main, args=(20_000 + (os.getpid() * 7 + i * 101) % 20_000, r, part), nprocs=WORKERS, join=True)
        with open(part) as f:
            run = json.load(f)
        os.remove(part)
        run["rank"] = r
        result["runs"].append(run)
    write_fixture(out, result)


if __name__ == "__main__":
    main()
