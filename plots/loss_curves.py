#!/usr/bin/env python3
"""Loss curves of `ccsim train --plot DIR`: held-out loss per step and, when the runs carry a time_curve,
per simulated second on the cluster and workload named in the title (each run's simulated_cluster). Writes
DIR/loss.png and DIR/loss.svg."""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def title(doc):
    """What was trained and, for the time panel, the cluster and workload whose step times price each step."""
    runs = doc["runs"]
    text = f"{doc.get('model', 'proxy model')}, {doc.get('workers', '?')} workers: " + ", ".join(
        f"{r['algorithm']} (lr {r['lr']:g})" if "lr" in r else r["algorithm"] for r in runs)
    clusters = sorted({(c["topology"], c["gpus"], c["workload"]) for c in
                       (r.get("simulated_cluster") for r in runs) if c})
    if clusters:
        text += "\nsimulated time on " + "; ".join(f"{t} x {g} GPUs, {w} step times" for t, g, w in clusters)
    return text


def main(path):
    doc = json.load(open(path))
    runs = doc["runs"]
    timed = all("time_curve" in r for r in runs)
    fig, axes = plt.subplots(1, 2 if timed else 1, figsize=(11 if timed else 6.5, 4.3), squeeze=False)
    for i, r in enumerate(runs):
        steps, loss = zip(*r["loss_curve"])
        axes[0][0].plot(steps, loss, color=f"C{i}", label=r["algorithm"])
        if timed:
            t, l2 = zip(*r["time_curve"])
            axes[0][1].plot(t, l2, color=f"C{i}", label=r["algorithm"])
    axes[0][0].set_xlabel("training step")
    axes[0][0].set_ylabel("held-out loss")
    if timed:
        axes[0][1].set_xlabel("simulated cluster time (s)")
        axes[0][1].set_ylabel("held-out loss")
    for ax in axes[0]:
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title(doc), fontsize=9)
    fig.tight_layout()
    out = os.path.dirname(os.path.abspath(path))
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"loss.{ext}"), dpi=130)
    print(f"figure: {os.path.join(out, 'loss.png')}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
