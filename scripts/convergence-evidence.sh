#!/usr/bin/env bash
# Regenerates workloads/evidence/convergence.json (issue 14): for every algorithm, the steps it needs to reach its family's
# uncompressed target loss on a proxy model, as a ratio to the uncompressed baseline's steps — measured by real
# `ccsim train` runs, each row carrying the command that produced it. `ccsim advise` multiplies the ratio by the
# simulated step time to rank by time-to-accuracy.
#
#   scripts/convergence-evidence.sh [--ccsim build/ccsim] [--out workloads/evidence/convergence.json] [--check]
#
# --check: rerun every row and compare with the file instead of writing it (what `ccsim advise --verify` does).
#
# Target: the baseline's final held-out loss + 1 % (the same 1-3 % bands the convergence tests use). A run's steps to
# target: the first evaluation (every 10 steps) at or below the target. Every algorithm trains twice as many steps as
# its baseline; one that has not reached the target by then "does not reach the target".
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import argparse, json, shlex, subprocess, sys

ap = argparse.ArgumentParser(prog="convergence-evidence.sh")
ap.add_argument("--ccsim", default="build/ccsim")
ap.add_argument("--out", default="workloads/evidence/convergence.json")
ap.add_argument("--check", action="store_true")
a = ap.parse_args()

TOLERANCE = 0.01
# Each family trains on the proxy and settings its convergence test uses (tests/algorithms/Convergence_test.cpp).
FAMILIES = [
    {"family": "data-parallel Adam", "baseline": "adam", "proxy": "mlp", "steps": 1000,
     "args": ["--global-batch", "512"], "algorithms": ["adam", "onebit-adam", "naive-1bit-adam"]},
    {"family": "data-parallel LAMB (large batch)", "baseline": "lamb", "proxy": "mlp", "steps": 1000,
     "args": ["--global-batch", "4096", "--param", "lr=0.01"],
     "algorithms": ["lamb", "onebit-lamb", "lamb-basic-1bit", "slamb", "randk-lamb", "topk-lamb"]},
    {"family": "sharded data parallel", "baseline": "megatron-dp", "proxy": "mlp", "steps": 1000,
     "args": ["--global-batch", "512"],
     "algorithms": ["megatron-dp", "sdp4bit", "qwd", "tlq", "tlq-hs", "ulq", "zeropp", "qw"]},
    {"family": "pipeline parallel (pp = 4, fw2/bw4)", "baseline": "fp32-pipeline", "proxy": "mlp", "steps": 600,
     "args": ["--global-batch", "128", "--param", "pp=4", "--param", "fw_bits=2", "--param", "bw_bits=4"],
     "algorithms": ["fp32-pipeline", "aq-sgd", "directq"]},
]

def train(algorithm, fam, steps):
    cmd = [a.ccsim, "train", "--algorithm", algorithm, "--model", fam["proxy"], "--workers", "16", "--seed", "1",
           "--steps", str(steps)] + fam["args"]
    # Parameters a given algorithm does not take (fw_bits for fp32-pipeline) are dropped, as train rejects them.
    cmd = drop_unknown(cmd, algorithm)
    out = subprocess.run(cmd + ["--format", "json", "--quiet"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"convergence-evidence.sh: {shlex.join(cmd)} failed: {out.stderr.strip()}")
    return cmd, json.loads(out.stdout)

LISTING = subprocess.run([a.ccsim, "list", "algorithms"], capture_output=True, text=True, check=True).stdout
def takes(algorithm, key):
    for line in LISTING.splitlines():
        if line.split() and line.split()[0] == algorithm:
            return f" {key} " in line or f"--param {key} " in line or f", {key} " in line
    return False

def drop_unknown(cmd, algorithm):
    out, i = [], 0
    while i < len(cmd):
        if cmd[i] == "--param":
            key = cmd[i + 1].split("=")[0]
            if key in ("lr", "pp") or takes(algorithm, key):
                out += cmd[i:i + 2]
            i += 2
        else:
            out.append(cmd[i]); i += 1
    return out

def steps_to(curve, target):
    for step, loss in curve:
        if loss is not None and loss <= target:  # null: the parameters overflowed (diverged_at_step)
            return step
    return None

rows = []
for fam in FAMILIES:
    base_cmd, base = train(fam["baseline"], fam, fam["steps"])
    target = base["final_loss"] * (1 + TOLERANCE)
    base_steps = steps_to(base["loss_curve"], target)
    for alg in fam["algorithms"]:
        cmd, run = (base_cmd, base) if alg == fam["baseline"] else train(alg, fam, 2 * fam["steps"])
        s = steps_to(run["loss_curve"], target)
        if run["final_loss"] is None:
            sys.exit(f"convergence-evidence: {alg} diverged (not finite from step {run['diverged_at_step']}); "
                     "the evidence file needs a finite final loss per row")
        row = {"algorithm": alg, "family": fam["family"], "baseline": fam["baseline"], "proxy": fam["proxy"],
               "target_loss": round(target, 6), "baseline_steps_to_target": base_steps,
               "steps_to_target": s, "converges": s is not None,
               "steps_ratio": round(s / base_steps, 4) if s is not None else None,
               "final_loss": round(run["final_loss"], 6), "command": shlex.join(cmd + ["--format", "json"])}
        if s is None:
            row["reason"] = (f"held-out loss {run['final_loss']:.4f} after {run['steps_done']} steps, above the target "
                             f"{target:.4f} ({fam['baseline']}'s final loss + {TOLERANCE:.0%})")
        rows.append(row)
        print(f"{alg:16s} {fam['baseline']:14s} steps {s!s:>5s} / {base_steps}  final {run['final_loss']:.4f}",
              file=sys.stderr)

doc = {"description": "Steps to reach each family's uncompressed target loss, relative to the uncompressed baseline, "
                      "measured on ccsim's proxy models (evidence for ccsim advise's time-to-accuracy)",
       "source": "scripts/convergence-evidence.sh: real ccsim train runs (16 workers, seed 1); target = the baseline's "
                 f"final held-out loss + {TOLERANCE:.0%}; each row's command reproduces it. Proxy evidence: the papers' "
                 "models may need different step counts, the ratios are what transfers",
       "rows": rows}
if a.check:
    old = json.load(open(a.out))
    key = lambda r: (r["algorithm"], r["family"])
    want = {key(r): r for r in old["rows"]}
    bad = [r["algorithm"] for r in rows if want.get(key(r), {}).get("steps_to_target") != r["steps_to_target"]]
    if bad:
        sys.exit(f"convergence-evidence.sh: {a.out} disagrees with a rerun for: {', '.join(bad)}")
    print(f"{a.out}: all {len(rows)} rows reproduced")
else:
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print(f"wrote {a.out} ({len(rows)} rows)")
PY
