#!/usr/bin/env python3
"""A picture of a `ccsim simulate --trace FILE` trace, as Perfetto lays it out: one panel per phase, one row per
rank (or node) track, spans coloured by category, and the first NIC's utilisation counter underneath.
Usage: trace_timeline.py TRACE.json OUT.png [max_tracks]  (also writes OUT.svg)."""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLOURS = {"compute": "#9ecae1", "kernel": "#fd8d3c", "optimizer": "#74c476", "collective": "#de2d26",
           "collective (under backward)": "#fb6a4a", "pipeline send": "#756bb1"}


def main(path, out, max_tracks=8):
    events = json.load(open(path))["traceEvents"]
    phases = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    fig, axes = plt.subplots(2, len(phases), figsize=(6 * len(phases), 4.5), squeeze=False,
                             gridspec_kw={"height_ratios": [3, 1]})
    for col, pid in enumerate(sorted(phases)):
        ax, counter_ax = axes[0][col], axes[1][col]
        tids = sorted({e["tid"] for e in events if e["ph"] == "X" and e["pid"] == pid})[:max_tracks]
        for row, tid in enumerate(tids):
            for e in events:
                if e["ph"] == "X" and e["pid"] == pid and e["tid"] == tid:
                    ax.broken_barh([(e["ts"] / 1e3, e["dur"] / 1e3)], (row - 0.4, 0.8),
                                   facecolors=COLOURS.get(e["cat"], "grey"), edgecolor="white", linewidth=0.3)
        ax.set_yticks(range(len(tids)))
        ax.set_yticklabels([threads.get((pid, t), str(t)) for t in tids], fontsize=7)
        ax.invert_yaxis()
        ax.set_title(phases[pid], fontsize=9)
        counters = sorted({e["name"] for e in events if e["ph"] == "C" and e["pid"] == pid})
        if counters:
            pts = [e for e in events if e["ph"] == "C" and e["pid"] == pid and e["name"] == counters[0]]
            for key in sorted(pts[0]["args"]):
                counter_ax.step([p["ts"] / 1e3 for p in pts], [p["args"][key] for p in pts], where="post", label=key)
            counter_ax.set_ylabel(counters[0].replace(" utilisation", ""), fontsize=7)
            counter_ax.set_ylim(0, 1.05)
            counter_ax.legend(fontsize=6, loc="upper left")
        counter_ax.set_xlabel("ms from the phase's start", fontsize=8)
        counter_ax.set_xlim(ax.get_xlim())
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in COLOURS.values()]
    fig.legend(handles, COLOURS.keys(), loc="lower center", ncol=len(COLOURS), fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(out, dpi=130)
    fig.savefig(out.rsplit(".", 1)[0] + ".svg")
    print(f"figure: {out}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 8)
