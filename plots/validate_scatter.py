#!/usr/bin/env python3
"""Paper vs predicted for `ccsim validate --plot DIR`: every paper value of the calibration tables, predicted with
the constants refitted on all rows (in-sample, hollow) and with its own row left out of the fit (leave-one-row-out,
filled), and with its whole table left out where another table constrains the same constants (crosses). One panel per
metric unit, log-log, with the y = x line and +/-10 % bands. Writes DIR/validate.png and DIR/validate.svg."""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(path):
    doc = json.load(open(path))
    fits = doc["fits"]
    topologies = [f["topology"] for f in fits]
    colours = {t: plt.cm.tab10(i % 10) for i, t in enumerate(topologies)}
    fig, ax = plt.subplots(figsize=(7.5, 6.5))
    lo, hi = float("inf"), 0.0
    for f in fits:
        c = colours[f["topology"]]
        for r in f["rows"]:
            paper = r["paper"]
            for key, marker, face, size in (("in_sample", "o", "none", 36), ("leave_row_out", "o", c, 16),
                                            ("leave_table_out", "x", c, 36)):
                if r.get(key) is None:
                    continue
                if marker == "x":  # an unfilled marker takes one colour
                    ax.scatter(paper, r[key], marker=marker, s=size, color=c, lw=1)
                else:
                    ax.scatter(paper, r[key], marker=marker, s=size, facecolors=face, edgecolors=c, lw=1)
            lo, hi = min(lo, paper), max(hi, paper)
    xs = [lo / 1.5, hi * 1.5]
    ax.plot(xs, xs, color="black", lw=0.8)
    ax.plot(xs, [x * 1.1 for x in xs], color="grey", lw=0.5, ls="--")
    ax.plot(xs, [x / 1.1 for x in xs], color="grey", lw=0.5, ls="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("paper value (ms, s, samples/s or TFLOP/s: each row's own unit)")
    ax.set_ylabel("ccsim prediction")
    m = doc["median_abs_error_pct"]

    def pct(x):
        return "-" if x is None else f"{x:.1f} %"

    ax.set_title(f"median |error|: leave-one-row-out {pct(m['leave_row_out'])}, leave-one-table-out "
                 f"{pct(m['leave_table_out'])}, in-sample {pct(m['in_sample'])}", fontsize=9)
    handles = [plt.Line2D([], [], marker="o", ls="", color=colours[t], label=t) for t in topologies]
    handles += [plt.Line2D([], [], marker="o", ls="", mfc="none", color="black", label="in-sample"),
                plt.Line2D([], [], marker="o", ls="", color="black", label="row left out"),
                plt.Line2D([], [], marker="x", ls="", color="black", label="table left out")]
    ax.legend(handles=handles, fontsize=7, loc="upper left")
    fig.tight_layout()
    out = os.path.dirname(os.path.abspath(path))
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"validate.{ext}"), dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: validate_scatter.py DIR/validate.json")
    main(sys.argv[1])
