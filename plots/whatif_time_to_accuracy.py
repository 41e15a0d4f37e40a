#!/usr/bin/env python3
"""What-if (issue 47): time to the uncompressed baseline's target loss against the inter-node bandwidth per node, for
the compressed and the low-communication methods on one cluster. Each point is one `ccsim advise --bandwidth-gbps X
--format json` run: time_to_accuracy_h where the convergence evidence says the method reaches the target (yes or
uncertain, drawn solid), else its epoch time, the time for as many samples as the baseline needs, drawn dashed and
marked as missing the target on the proxies (advise ranks those last).

    python3 plots/whatif_time_to_accuracy.py [--ccsim build/ccsim] [--out plots/examples/whatif-time-to-accuracy]
        [--topology v100x4-eth10g --workload bert-large --gpus 64] [--jobs 2]

writes OUT.json (every advise row per bandwidth) and OUT.png.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ALGORITHMS = ["adam", "onebit-adam", "sdp4bit", "powersgd", "diloco", "streaming-diloco", "demo"]
# 100 Mbit/s to 400 Gbit/s per node.
BANDWIDTHS_GBPS = [0.1, 0.25, 1, 2.5, 10, 25, 100, 400]


def advise(args, gbps):
    cmd = [args.ccsim, "advise", "--topology", args.topology, "--workload", args.workload, "--gpus", str(args.gpus),
           "--algorithms", ",".join(ALGORITHMS), "--bandwidth-gbps", str(gbps), "--jobs", str(args.jobs),
           "--format", "json", "--quiet"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"whatif_time_to_accuracy: {' '.join(cmd)} failed: {run.stderr.strip()}")
    return json.loads(run.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ccsim", default="build/ccsim")
    ap.add_argument("--out", default="plots/examples/whatif-time-to-accuracy")
    ap.add_argument("--topology", default="v100x4-eth10g")
    ap.add_argument("--workload", default="bert-large")
    ap.add_argument("--gpus", type=int, default=64)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()

    points = {a: [] for a in ALGORITHMS}
    for gbps in BANDWIDTHS_GBPS:
        doc = advise(args, gbps)
        for row in doc["ranking"]:
            reaches = row["time_to_accuracy_h"] is not None
            hours = row["time_to_accuracy_h"] if reaches else row["epoch_time_s"] / 3600
            points[row["algorithm"]].append({"bandwidth_gbps": gbps, "hours": hours, "reaches_target": reaches,
                                             "converges": row["converges"], "samples_per_s": row["samples_per_s"]})
        print(f"{gbps:g} Gbit/s: " + ", ".join(f"{r['algorithm']} {r['time_to_accuracy_h'] or float('nan'):.4g} h"
                                                for r in doc["ranking"]), file=sys.stderr)
    result = {"command": f"python3 plots/whatif_time_to_accuracy.py --topology {args.topology} --workload "
                         f"{args.workload} --gpus {args.gpus}",
              "epoch_samples": doc["epoch_samples"], "points": points}
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=os.path.dirname(args.out) or ".", delete=False) as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    os.replace(f.name, args.out + ".json")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for a in ALGORITHMS:
        pts = points[a]
        if not pts:
            continue
        x = [p["bandwidth_gbps"] for p in pts]
        y = [p["hours"] for p in pts]
        misses = not all(p["reaches_target"] for p in pts)
        ax.plot(x, y, "--" if misses else "-", marker="o", ms=3,
                label=a + (" (misses the target on the proxies: time for the baseline's samples)" if misses else ""))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("inter-node bandwidth per node (Gbit/s)")
    ax.set_ylabel("hours to the baseline's target loss")
    ax.set_title(f"{args.workload}, {args.gpus} GPUs ({args.topology}): time to accuracy vs bandwidth", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    png = args.out + ".png"
    fig.savefig(png + ".tmp.png", dpi=110)
    os.replace(png + ".tmp.png", png)
    print(f"wrote {args.out}.json and {png}", file=sys.stderr)


if __name__ == "__main__":
    main()
