#!/usr/bin/env python3
"""Will compression make my cluster train faster? A bandwidth what-if from Python.

BERT-Large on 64 V100s (16 nodes of the v100x4-eth40g preset, 1-bit LAMB's Ethernet cluster): simulate uncompressed
Adam and LAMB and their compressed rivals at inter-node bandwidths from 1 to 100 Gbit/s, print each one's speedup
over Adam, and draw speedup against bandwidth (PNG, with matplotlib when it is installed). The simulations run at once
from a thread pool: each runs in its own forked process, so the threads do not wait on each other.

    pip install .                      # from the repository root (see README: Python)
    python3 examples/bandwidth_whatif.py --out whatif.png

The same sweep is the preset experiment whatif-bandwidth: ccsim.experiment("whatif-bandwidth").to_pandas().
"""

import argparse
import os
from concurrent.futures import ThreadPoolExecutor

import ccsim

ALGORITHMS = ["adam", "onebit-adam", "lamb", "onebit-lamb", "slamb"]
BANDWIDTHS_GBPS = [1, 2.5, 5, 10, 25, 40, 100]


def sweep(topology, workload, gpus, global_batch, micro_batch, jobs):
    """samples/s of every (algorithm, bandwidth)."""
    configs = [(a, bw) for a in ALGORITHMS for bw in BANDWIDTHS_GBPS]

    def run(config):
        algorithm, bandwidth = config
        r = ccsim.simulate(topology=topology, workload=workload, algorithm=algorithm, gpus=gpus,
                           global_batch=global_batch, micro_batch=micro_batch, bandwidth_gbps=bandwidth)
        return r.samples_per_s

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return dict(zip(configs, pool.map(run, configs)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--topology", default="v100x4-eth40g")
    parser.add_argument("--workload", default="bert-large")
    parser.add_argument("--gpus", type=int, default=64)
    parser.add_argument("--global-batch", type=int, default=8192)
    parser.add_argument("--micro-batch", type=int, default=16)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="simulations at once")
    parser.add_argument("--out", default="bandwidth_whatif.png", help="the figure (PNG)")
    args = parser.parse_args()

    rate = sweep(args.topology, args.workload, args.gpus, args.global_batch, args.micro_batch, args.jobs)
    speedup = {(a, bw): rate[(a, bw)] / rate[("adam", bw)] for a, bw in rate}

    print(f"{args.workload} on {args.gpus} GPUs of {args.topology}: speedup over Adam (samples/s ratio)")
    print(f"{'Gbit/s':>8}" + "".join(f"{a:>13}" for a in ALGORITHMS))
    for bw in BANDWIDTHS_GBPS:
        print(f"{bw:>8g}" + "".join(f"{speedup[(a, bw)]:>13.2f}" for a in ALGORITHMS))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no figure drawn (pip install matplotlib)")
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for a in ALGORITHMS:
        ax.plot(BANDWIDTHS_GBPS, [speedup[(a, bw)] for bw in BANDWIDTHS_GBPS], marker="o", label=a)
    ax.set_xscale("log")
    ax.set_xticks(BANDWIDTHS_GBPS)
    ax.set_xticklabels([f"{bw:g}" for bw in BANDWIDTHS_GBPS])
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xlabel("inter-node bandwidth per node (Gbit/s)")
    ax.set_ylabel("speedup over Adam (samples/s)")
    ax.set_title(f"{args.workload}, {args.gpus} GPUs of {args.topology}: what if the network changed?")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
