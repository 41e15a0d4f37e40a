#!/usr/bin/env python3
"""Prints the convergence evidence (workloads/evidence/convergence.json) as the markdown table docs/convergence.md
shows: per family, proxy and algorithm, the final held-out loss's mean and range over the seeds, the mean gap to the
family's baseline on the same seed with its 90 % confidence interval, and the verdict that interval gives.

    python3 scripts/evidence-table.py [workloads/evidence/convergence.json]
"""
import json
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "workloads/evidence/convergence.json"
rows = json.load(open(path))["rows"]


def losses(values):
    finite = [v for v in values if v is not None]
    if not finite:
        return "diverged"
    text = f"{sum(finite) / len(finite):.3f} [{min(finite):.3f}, {max(finite):.3f}]"
    if len(finite) < len(values):
        text += f", {len(values) - len(finite)} diverged"
    return text


def gap(row):
    if row["algorithm"] == row["baseline"]:
        return "(baseline)"
    diverged = sum(f is None for f in row["final_loss"])
    if row["gap_mean"] is None:
        return "diverged"
    text = f"{100 * row['gap_mean']:+.1f} %"
    if row["gap_interval_90"] is not None:
        low, high = row["gap_interval_90"]
        text += f" [{100 * low:+.1f}, {100 * high:+.1f}]"
    return text + (f", {diverged} diverged" if diverged else "")


print("| family | proxy, regime | algorithm | final loss, mean [min, max] | gap to baseline, mean [90 % interval] | "
      "threshold | converges |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r['family']} | {r['proxy']}, {r['regime']} | `{r['algorithm']}` | {losses(r['final_loss'])} | {gap(r)} | "
          f"{100 * r['threshold']:g} % | {r['converges']} |")
seeds = sorted({s for r in rows for s in r["seeds"]})
print(f"\nSeeds {seeds[0]}-{seeds[-1]} ({len(seeds)}); each row's command: the `command` field of {path}.")
