#!/usr/bin/env python3
"""Reference vectors for tests/numerics/DilocoParity_test.cpp: DiLoCo's loop in torch, as PrimeIntellect's prime
(zeroband/diloco.py) runs it, with W workers in one process (the all-reduce SUM is a sum in worker order).

  inner: torch.optim.AdamW per worker, its state kept across outer steps;
  outer, every H inner steps: grad = sum over workers of (global - local) / W (sync_pseudo_gradient), then
         torch.optim.SGD(global, lr=0.7, momentum=0.9, nesterov=True).step(), and every worker copies global.

The gradients are made to order (reference_common.grad_value with tensor 0: a multiple of 1/1024 from an integer
hash, exact in fp32; the test computes the same), so the trajectory needs no model. Not run by the test suite.
Regenerate with torch:
    python3 scripts/reference/diloco-torch.py tests/data/reference/diloco-torch.json
"""
import sys

import torch

from reference_common import grad_value, short, write_fixture

WORKERS = 3
SIZE = 64
STEPS = 14  # three outer steps (after 4, 8, 12) and two inner steps after the last
H = 4
INNER = dict(lr=0.01, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.1)
OUTER = dict(lr=0.7, momentum=0.9, nesterov=True)


def main():
    out = sys.argv[1]
    start = torch.tensor([grad_value(99, 0, 0, i) for i in range(SIZE)], dtype=torch.float32)
    global_param = torch.nn.Parameter(start.clone())
    outer = torch.optim.SGD([global_param], **OUTER)
    local = [torch.nn.Parameter(start.clone()) for _ in range(WORKERS)]
    inner = [torch.optim.AdamW([p], **INNER) for p in local]
    after_outer = []
    for step in range(1, STEPS + 1):
        for w in range(WORKERS):
            local[w].grad = torch.tensor([grad_value(w, step, 0, i) for i in range(SIZE)], dtype=torch.float32)
            inner[w].step()
        if step % H == 0:
            pseudo = torch.zeros(SIZE)
            for w in range(WORKERS):
                pseudo += (global_param.data - local[w].data) / WORKERS
            global_param.grad = pseudo
            outer.step()
            outer.zero_grad()
            for p in local:
                p.data.copy_(global_param.data)
            after_outer.append(short(global_param.data.tolist()))
    result = {"source": "torch " + torch.__version__ + ": AdamW inner, SGD(nesterov) outer, prime's sync_pseudo_gradient "
                        "(scripts/reference/diloco-torch.py)",
              "workers": WORKERS, "size": SIZE, "steps": STEPS, "inner_steps": H,
              "inner": {"lr": INNER["lr"], "beta1": INNER["betas"][0], "beta2": INNER["betas"][1], "eps": INNER["eps"],
                        "weight_decay": INNER["weight_decay"]},
              "outer": {"lr": OUTER["lr"], "momentum": OUTER["momentum"]},
              "global_after_outer": after_outer,
              "worker_params_at_end": [short(p.data.tolist()) for p in local]}
    write_fixture(out, result)


if __name__ == "__main__":
    main()
