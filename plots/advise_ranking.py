#!/usr/bin/env python3
"""The two rankings of `ccsim advise --plot DIR`: left, time-to-accuracy per algorithm (the answer), algorithms that
do not reach the target drawn as hatched bars at their epoch time and marked "does not converge"; right, the same
algorithms by throughput alone (what a speedup table would recommend), so a reader sees which fast algorithms the
convergence evidence demotes. Writes DIR/advise.png and DIR/advise.svg from DIR/advise.json."""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(path):
    doc = json.load(open(path))
    rows = doc["ranking"]
    if not rows:
        print("advise_ranking: nothing ranked", file=sys.stderr)
        return
    names = [r["algorithm"] for r in rows]  # time-to-accuracy order, as advise prints it
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 0.32 * len(rows) + 1.8), sharey=False)

    # converges: "yes", "uncertain" (seeds or proxies disagree), "no", or null (no evidence)
    colour_of = {"yes": "tab:blue", "uncertain": "tab:orange", "no": "tab:red", None: "tab:gray"}
    colours, values, hatches = [], [], []
    for r in rows:
        colours.append(colour_of[r["converges"]])
        if r["time_to_accuracy_h"] is not None:
            values.append(r["time_to_accuracy_h"])
            hatches.append("")
        else:  # no evidence or does not converge: its epoch time, hatched
            values.append(r["epoch_time_s"] / 3600)
            hatches.append("//")
    y = range(len(rows))
    bars = left.barh(y, values, color=colours)
    for b, h in zip(bars, hatches):
        b.set_hatch(h)
    left.set_yticks(list(y))
    left.set_yticklabels([f"{i + 1}. {n}" for i, n in enumerate(names)], fontsize=8)
    left.invert_yaxis()
    left.set_xlabel("hours to the target loss (blue; orange: uncertain); epoch hours of those that do not reach it "
                    "(hatched)")
    left.set_title("ranked by time-to-accuracy", fontsize=10)
    note = {"uncertain": " uncertain", "no": " does not converge", None: " no evidence"}
    for i, r in enumerate(rows):
        if r["converges"] != "yes":
            left.text(values[i], i, note[r["converges"]], va="center", fontsize=7, color=colours[i])

    by_rate = sorted(rows, key=lambda r: r["throughput_rank"])
    rates = [r["samples_per_s"] for r in by_rate]
    right.barh(range(len(by_rate)), rates,
               color=[colour_of[r["converges"]] for r in by_rate])
    right.set_yticks(list(range(len(by_rate))))
    right.set_yticklabels([f"{r['throughput_rank']}. {r['algorithm']}" for r in by_rate], fontsize=8)
    right.invert_yaxis()
    right.set_xlabel("samples/s (red: does not reach the target loss)")
    right.set_title("ranked by throughput alone", fontsize=10)

    cfg = doc.get("title", "")
    fig.suptitle(cfg, fontsize=10)
    fig.tight_layout()
    out = os.path.dirname(os.path.abspath(path))
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"advise.{ext}"), dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: advise_ranking.py DIR/advise.json")
    main(sys.argv[1])
