#!/usr/bin/env python3
"""Draws the figure of a `ccsim experiment` run: reads DIR/results.json, writes DIR/figure.png and .svg.

Kinds (the experiment's "figure"):
  scaling              y (default samples_per_s) against x (default gpus), one line per series (default algorithm)
  speedup-vs-bandwidth speedup over the baseline against bandwidth_gbps (log x), one line per algorithm
  breakdown            stacked step time (compute, exposed communication, compression, optimizer) per row
  paper-vs-predicted   predicted against the paper's value of metric y, with the y = x line
Paper values, where rows have them, are overlaid as hollow squares, and the experiment's "paper_points" (the paper's
points from another of its tables) as stars with their source in the legend; each prediction's likely range (the rows'
"intervals", from ccsim's out-of-sample errors) is a shaded band. Points that did not run (a row with "error") are an
x on the x axis, and points that ran under --allow-oom although they do not fit the GPUs' memory (fits_memory "no")
are hollow circles, each with a legend entry, so no point drops out silently.
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

UNITS = {"samples_per_s": "throughput (samples/s)", "step_time_s": "step time (s)", "tflops_per_gpu": "TFLOP/s per GPU",
         "allreduce_ms": "allreduce (ms)", "gpus": "GPUs", "bandwidth_gbps": "inter-node bandwidth per node (Gbit/s)",
         "scaling_efficiency": "scaling efficiency", "speedup": "speedup over baseline (x)",
         "global_batch": "global batch (samples)"}


def safe(text):
    """A name from an input file as drawn: control characters (ESC, BEL, ...) shown as \\xNN, as ccsim prints them."""
    return "".join(f"\\x{ord(c):02X}" if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F else c for c in str(text))


def label(key):
    return safe(UNITS.get(key, key))


def series_name(row, series):
    return safe(" ".join(str(row.get(s, "")) for s in series) if isinstance(series, list) else row.get(series, ""))


def mark_missing(ax, x, failed, oom):
    """An x on the x axis for each point that did not run; a legend entry for those and for hollow (OOM) points."""
    if failed:
        ax.plot([r[x] for r in failed], [0.02] * len(failed), "x", color="black", transform=ax.get_xaxis_transform(),
                clip_on=False, label="did not run (error in results.json)")
    if oom:
        ax.plot([], [], "o", mfc="white", color="grey", label="does not fit GPU memory (ran with --allow-oom)")


def overlay_paper_points(ax, spec, x, y, series, colours, panels, value):
    """The experiment's paper_points on this panel: stars in their series' colour, the source in the legend."""
    if not spec:
        return
    pts = [p for p in spec["points"] if x in p and y in p and (panels is None or p.get(panels) == value)]
    for i, p in enumerate(pts):
        ax.plot(p[x], p[y], "*", ms=11, mec="black", mew=0.6, color=colours.get(series_name(p, series), "black"),
                zorder=4, label=f"paper: {spec['source']}" if i == 0 else None)


def main(path):
    doc = json.load(open(path))
    rows = [r for r in doc["rows"] if "error" not in r]
    failed = [r for r in doc["rows"] if "error" in r]
    fig_spec = doc.get("figure", {})
    kind = fig_spec.get("kind", "none")
    out_dir = os.path.dirname(os.path.abspath(path))
    panels = fig_spec.get("panels") if kind in ("scaling", "speedup-vs-bandwidth") else None
    panel_values = sorted({r[panels] for r in rows if panels in r}) if panels else [None]
    if panels and len(panel_values) > 1:
        n = len(panel_values)
        cols = n if n <= 3 else (2 if n == 4 else 3)
        nrows = (len(panel_values) + cols - 1) // cols
        fig, axes = plt.subplots(nrows, cols, figsize=(5.2 * cols, 3.9 * nrows), squeeze=False)
        axes = list(axes.flat)
        for extra in axes[len(panel_values):]:
            extra.set_visible(False)
    else:
        fig, ax = plt.subplots(figsize=(7.5, 4.8))
        axes, panels, panel_values = [ax], None, [None]
    ax = axes[0]
    if kind in ("scaling", "speedup-vs-bandwidth"):
        x = fig_spec.get("x", "gpus" if kind == "scaling" else "bandwidth_gbps")
        y = fig_spec.get("y", "samples_per_s" if kind == "scaling" else "speedup")
        series = fig_spec.get("series", "algorithm")
        # One colour per series across every panel.
        colours = {n: f"C{i % 10}" for i, n in enumerate(sorted({series_name(r, series) for r in rows}))}
        for ax, value in zip(axes, panel_values):
            groups = {}
            for r in rows:
                if y in r and x in r and (panels is None or r.get(panels) == value):
                    groups.setdefault(series_name(r, series), []).append(r)
            for name, rs in sorted(groups.items()):
                rs.sort(key=lambda r: r[x])
                colour = colours[name]
                ax.plot([r[x] for r in rs], [r[y] for r in rs], "o-", color=colour, label=f"{name} (ccsim)")
                oom = [r for r in rs if r.get("fits_memory") == "no"]
                if oom:  # ran under --allow-oom: hollow, so it reads as a point the cluster could not hold
                    ax.plot([r[x] for r in oom], [r[y] for r in oom], "o", mfc="white", color=colour, zorder=3)
                # The likely range of each prediction (api/run/Intervals.hpp), where the row has one for y.
                ranged = [r for r in rs if y in r.get("intervals", {})]
                if ranged:
                    ax.fill_between([r[x] for r in ranged], [r["intervals"][y]["low"] for r in ranged],
                                    [r["intervals"][y]["high"] for r in ranged], color=colour, alpha=0.12, lw=0)
                paper = [(r[x], r["paper"][y]) for r in rs if y in r.get("paper", {})]
                if paper:
                    ax.plot(*zip(*paper), "s", mfc="none", color=colour, label=f"{name} (paper)")
            mark_missing(ax, x, [r for r in failed if x in r and (panels is None or r.get(panels) == value)],
                         [r for rs in groups.values() for r in rs if r.get("fits_memory") == "no"])
            overlay_paper_points(ax, doc.get("paper_points"), x, y, series, colours, panels, value)
            if kind == "speedup-vs-bandwidth" or fig_spec.get("log_x"):
                ax.set_xscale("log")
                # GPU counts and bandwidths read better as the swept values than as powers of ten.
                ticks = sorted({r[x] for rs in groups.values() for r in rs})
                if 1 < len(ticks) <= 12:
                    ax.set_xticks(ticks)
                    ax.set_xticklabels([f"{t:g}" for t in ticks])
                    ax.minorticks_off()
            if kind == "speedup-vs-bandwidth":
                ax.axhline(1.0, color="grey", lw=0.8, ls="--")
            ax.set_xlabel(label(x))
            ax.set_ylabel(label(y))
            ax.grid(True, alpha=0.3)
            if panels is not None:
                ax.set_title(f"{label(panels)} = {value:g}" if isinstance(value, (int, float)) else f"{label(panels)} = {value}",
                             fontsize=9)
        axes[0].legend(fontsize=8)
    elif kind == "breakdown":
        names = [safe(r.get("label") or f"{r.get('algorithm')} {r.get('gpus')}") for r in rows]
        parts = [("compute_s", "compute"), ("exposed_comm_s", "exposed communication"),
                 ("compression_s", "compression kernels"), ("optimizer_s", "optimizer")]
        bottom = [0.0] * len(rows)
        for i, (key, name) in enumerate(parts):
            vals = [r.get(key, 0.0) for r in rows]
            ax.bar(range(len(rows)), vals, bottom=bottom, color=f"C{i}", label=name)
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("step time (s)")
        ax.legend(fontsize=8)
    elif kind == "paper-vs-predicted":
        y = fig_spec.get("y", "samples_per_s")
        pts = [(r["paper"][y], r["predicted"][y], r.get("algorithm", "")) for r in rows if y in r.get("paper", {})]
        algos = sorted({p[2] for p in pts})
        for i, a in enumerate(algos):
            sel = [p for p in pts if p[2] == a]
            ax.plot([p[0] for p in sel], [p[1] for p in sel], "o", color=f"C{i % 10}", label=a)
        for r in rows:  # each prediction's likely range, as a vertical bar
            iv = r.get("intervals", {}).get(y)
            if iv and y in r.get("paper", {}):
                ax.plot([r["paper"][y]] * 2, [iv["low"], iv["high"]], color="grey", lw=0.8, alpha=0.6)
        if pts:
            lo = min(min(p[0], p[1]) for p in pts) * 0.9
            hi = max(max(p[0], p[1]) for p in pts) * 1.1
            ax.plot([lo, hi], [lo, hi], "--", color="grey", lw=0.8, label="predicted = paper")
            ax.fill_between([lo, hi], [lo * 0.92, hi * 0.92], [lo * 1.08, hi * 1.08], color="grey", alpha=0.12,
                            label="±8 %")
        ax.set_xlabel(f"paper: {label(y)}")
        ax.set_ylabel(f"ccsim: {label(y)}")
        ax.legend(fontsize=8)
    else:
        plt.close(fig)
        return
    ax.grid(True, alpha=0.3)
    if panels is not None:
        fig.suptitle(safe(fig_spec.get("title", doc.get("experiment", ""))), fontsize=10)
    else:
        ax.set_title(safe(fig_spec.get("title", doc.get("experiment", ""))), fontsize=10)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out_dir, f"figure.{ext}"), dpi=130)
    print(f"figure: {os.path.join(out_dir, 'figure.png')}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
