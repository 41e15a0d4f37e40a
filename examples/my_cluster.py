#!/usr/bin/env python3
"""My cluster, step by step: describe it, calibrate it on an nccl-tests log, compare algorithms, sweep nodes, plot.

The cluster: 4 nodes of 8 x A100-SXM4-40GB (NVSwitch) with 2 x 100 GbE RoCE NICs each, training Llama-3-8B.

1. Describe the nodes: start from the preset of the closest cluster ccsim knows (a100x8-roce100x16: the same GPU and
   100 Gb/s RoCE NICs, but 16 of them per node) and change what differs, as a dict: 2 NICs per node.
2. Calibrate: fit the collective constants on an nccl-tests all-reduce log. Here a published log of two such
   A100 nodes over 100 Gb/s RoCE (tests/data/nccl-tests-real/02-...; its README names the source); with a log of
   your own cluster, calibrate your own dict instead. What the fit finds is per NIC, so it carries over to 2 NICs.
3. Compare the algorithms: `advise` ranks them by time to accuracy; those that do not fit 40 GB are listed with the
   ZeRO stage / tp / pp / micro-batch changes that would make them fit. Then again with the baseline's first change
   (for this cluster a higher ZeRO stage, which shards the gradients over the data-parallel GPUs and keeps tp 1).
4. Sweep the number of nodes for the baseline and the fastest other algorithm that converges: tokens/s per GPU
   (where it fits: fewer nodes shard the sharded state over fewer GPUs).
5. Plot tokens/s against nodes (PNG, with matplotlib: pip install '.[plot]').

    python3 examples/my_cluster.py --out my_cluster.png
"""

import argparse
import os
import tempfile

import ccsim

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOG = os.path.join(REPO, "tests", "data", "nccl-tests-real", "02-a100-oci-bmgpu48-roce-2n-allreduce.txt")
WORKLOAD = "llama3-8b"
GPUS_PER_NODE = 8


def describe_cluster(base):
    """Step 1: the base topology (a preset, or the file calibrate wrote), changed where my cluster differs."""
    topo = ccsim.load_topology(base)
    topo["description"] = "my cluster: 8 x A100-SXM4-40GB (NVSwitch), 2 x 100 GbE RoCE per node"
    topo["nic"]["count"] = 2
    return topo


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="my_cluster.png", help="figure (PNG)")
    parser.add_argument("--nodes", default="1,2,4,8", help="node counts to sweep (my cluster has 4)")
    args = parser.parse_args()
    nodes = [int(n) for n in args.nodes.split(",")]
    gpus = GPUS_PER_NODE * 4  # my cluster: 4 nodes

    # Step 2: calibrate the preset the log was measured on (16 NICs per node) on the log: the NIC's delivered rate and
    # NCCL's per-protocol latencies and ceilings are fitted per NIC and per hop, so they carry over to 2 NICs per node.
    with tempfile.TemporaryDirectory() as tmp:
        fitted = os.path.join(tmp, "fitted.json")
        fit = ccsim.calibrate("a100x8-roce100x16", nccl_tests=LOG, out=fitted)
        topo = describe_cluster(fitted)
    print(f"calibrated on {os.path.basename(LOG)}: median |error| {100 * fit.median_abs_error:.1f} % over "
          f"{len(fit.rows)} sizes; NIC {topo['nic']['effective_gbps']:.1f} of {topo['nic']['bandwidth_gbps']} Gbit/s")
    for c in fit.constants:
        print(f"  {c.pointer:32} {c.before:10.4g} -> {c.after:.4g}")

    # Step 3: every algorithm at the run's split (tp 1): what fits, and what would make the rest fit.
    advice = ccsim.advise(topo, WORKLOAD, gpus)
    print(f"\n{advice.title}: {len(advice.ranking)} run, {len(advice.cannot_run)} do not")
    for c in advice.cannot_run:
        if "memory" in c:
            changes = " or ".join(f"{f.change} ({f.memory_gb_per_gpu:.1f} GB)" for f in c.memory.would_fit)
            print(f"  {c.algorithm:16} needs {c.memory.memory_gb_per_gpu:.1f} GB; fits with {changes or 'nothing tried'}")
    # The baseline's first suggestion, as keywords (e.g. "zero=2" or "tp=2").
    baseline = next(c for c in advice.cannot_run if c.algorithm == advice.baseline) if not advice.ranking else None
    split = dict(part.split("=") for part in baseline.memory.would_fit[0].change.split()) if baseline else {}
    split = {k: int(v) for k, v in split.items()}
    advice = ccsim.advise(topo, WORKLOAD, gpus, **split)
    print(f"\nat {split or 'the run split'}: rank, algorithm, converges, tokens/s, speedup over {advice.baseline}")
    for i, r in enumerate(advice.ranking, 1):
        print(f"  {i:2}  {r.algorithm:16} {r.converges or 'no evidence':11} {r.tokens_per_s:10.0f}  {r.speedup:.2f}")
    # The fastest algorithm to accuracy other than the baseline, among those that converge.
    best = next((r.algorithm for r in advice.ranking if r.converges == "yes" and r.algorithm != advice.baseline),
                advice.baseline)

    # Step 4: tokens/s per GPU over the node counts, baseline and best.
    compared = [advice.baseline] + ([best] if best != advice.baseline else [])
    print(f"\nnodes  " + "  ".join(f"{a:>14}" for a in compared) + "   (tokens/s per GPU)")
    per_gpu = {a: {} for a in compared}
    for n in nodes:
        row = []
        for a in compared:
            try:
                r = ccsim.simulate(topology=topo, workload=WORKLOAD, algorithm=a, gpus=GPUS_PER_NODE * n, **split)
            except ccsim.InputError as e:  # fewer nodes, less data parallelism: the sharded state may not fit
                if "/gpu/memory_gb" not in str(e):
                    raise
                row.append(f"{'does not fit':>14}")
                continue
            per_gpu[a][n] = r.samples_per_s * r.config.seq_len / r.config.gpus  # a token per sequence position
            row.append(f"{per_gpu[a][n]:14.0f}")
        print(f"{n:5}  " + "  ".join(row))

    # Step 5: the figure.
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("\nno figure drawn (needs matplotlib: pip install '.[plot]')")
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    for a in compared:
        ax.plot(list(per_gpu[a]), list(per_gpu[a].values()), marker="o", label=a)
    ax.set_xlabel("nodes (8 x A100-40GB, 2 x 100 GbE RoCE)")
    ax.set_ylabel("tokens/s per GPU")
    ax.set_xticks(nodes)
    ax.set_title(f"{WORKLOAD} on my cluster, {split or 'tp 1'}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
