#!/usr/bin/env python3
"""Prints the convergence evidence (workloads/evidence/convergence.json) as the markdown table docs/convergence.md
shows: per family, proxy and algorithm, the final held-out loss's mean and range over the seeds, the gap to the
family's baseline on the same seed (mean and range), and the verdict.

    python3 scripts/evidence-table.py [workloads/evidence/convergence.json]
"""
import json
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "workloads/evidence/convergence.json"
rows = json.load(open(path))["rows"]


def fmt_range(values, pct=False):
    finite = [v for v in values if v is not None]
    if not finite:
        return "diverged"
    scale, unit = (100, " %") if pct else (1, "")
    mean = sum(finite) / len(finite)
    text = f"{scale * mean:+.1f}{unit} [{scale * min(finite):+.1f}, {scale * max(finite):+.1f}]" if pct else \
        f"{mean:.3f} [{min(finite):.3f}, {max(finite):.3f}]"
    if len(finite) < len(values):
        text += f", {len(values) - len(finite)} diverged"
    return text


print("| family | proxy, regime | algorithm | final loss, mean [min, max] | gap to baseline, mean [min, max] | threshold | converges |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    gaps = [None if f is None else f / b - 1 for f, b in zip(r["final_loss"], r["baseline_final_loss"])]
    gap = "(baseline)" if r["algorithm"] == r["baseline"] else fmt_range(gaps, pct=True)
    print(f"| {r['family']} | {r['proxy']}, {r['regime']} | `{r['algorithm']}` | {fmt_range(r['final_loss'])} | {gap} | "
          f"{100 * r['threshold']:g} % | {r['converges']} |")
print(f"\nSeeds {sorted({s for r in rows for s in r['seeds']})}; each row's command: the `command` field of {path}.")
