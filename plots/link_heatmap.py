#!/usr/bin/env python3
"""Per-link load over time of `ccsim simulate --links --plot DIR`: a heat map with one row per link direction (NIC
and fabric links, up and down) and time on the simulated clock, each cell the link's utilisation during one op.
Phases are separated by white lines and labelled; the busiest op of each phase is named. Writes DIR/links.png and
DIR/links.svg."""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main(path):
    doc = json.load(open(path))
    lot = doc["links_over_time"]
    links, intervals = lot["links"], lot["intervals"]
    if not intervals or not links:
        print("link_heatmap: no link intervals to draw", file=sys.stderr)
        return
    edges = [intervals[0]["start_s"]] + [iv["end_s"] for iv in intervals]
    util = np.array([iv["utilisation"] for iv in intervals]).T  # links x intervals
    fig, ax = plt.subplots(figsize=(11, max(3.0, 0.22 * len(links) + 1.5)))
    mesh = ax.pcolormesh(edges, np.arange(len(links) + 1), util, cmap="viridis", vmin=0, vmax=1, shading="flat")
    ax.set_yticks(np.arange(len(links)) + 0.5)
    ax.set_yticklabels(links, fontsize=7 if len(links) <= 40 else 5)
    ax.set_xlabel("simulated time (s)")
    ax.set_title(pad=16, label=f"{doc['config']['algorithm']} on {doc['config']['workload']} x {doc['config']['topology']}, "
                 f"{doc['config']['gpus']} GPUs: link utilisation per op")
    phase_start = {}
    for iv in intervals:
        phase_start.setdefault(iv["phase"], iv["start_s"])
    for name, start in phase_start.items():
        ax.axvline(start, color="white", lw=1)
        ax.text(start, len(links) + 0.2, f" {name}", fontsize=8, va="bottom")
    fig.colorbar(mesh, ax=ax, label="utilisation (bytes / capacity / time)")
    fig.tight_layout()
    out = os.path.dirname(os.path.abspath(path))
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"links.{ext}"), dpi=130)
    print(f"figure: {os.path.join(out, 'links.png')}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
