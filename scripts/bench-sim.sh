#!/usr/bin/env bash
# Simulator speed benchmark (issue 19): wall time (sim.wall_s), events and peak RSS of one simulated step of every
# algorithm at 64 / 256 / 1,024 GPUs in both fidelities (bert-xl on a100x8-ib100), and of every algorithm at 4,096 and
# 16,384 GPUs in fast mode on the oversubscribed fat-tree a100x8-fattree16k. Prints a Markdown table.
# Issue 29 adds a 70B-class 3D-parallel step (llama2-70b, tp 8 x pp 4, global batch 1,024: 256 micro-batches per replica
# at dp 4) of adam, onebit-adam, onebit-lamb, slamb, sdp4bit, megatron-dp and aq-sgd on h800x8-ib400x8 (128 GPUs, dp 4)
# and a100x8-ib100 (256 and 1,024 GPUs, dp 8 and 32), and `advise --search` of llama2-7b and llama2-70b at 256 and
# 1,024 GPUs (process wall seconds, with how many splits were simulated and pruned).
# Issue 49 adds the large-model validation cases (section `large`): every row of experiments/korthikanti-table5*.json,
# llama3-table4.json, mtnlg-530b.json and bloom-176b.json as its experiment lays it out, and a 1T GPT at tp 8 x pp 64 on
# 3,072 GPUs (dp 6, 512 micro-batches per replica), one step each in fast fidelity.
#
#   scripts/bench-sim.sh [--ccsim build/ccsim] [--limit SECONDS] [--quick] [--algorithms a,b,c]
#                        [--sections bert,70b,large,advise]
#
# --limit: each run stops after this many seconds (ccsim --time-limit) and is shown as "> limit" (default 120).
# --quick: 1,024 GPUs (both fidelities) and 16,384 (fast) only.
# Pipelined algorithms (aq-sgd, directq, fp32-pipeline) run with --pp 4. The global batch is one micro-batch of 64
# per data-parallel GPU, so every size divides it. Wall times depend on the machine and its load: the script prints
# `nproc` and the load average beside the table.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import argparse, json, os, resource, subprocess, sys, time

ap = argparse.ArgumentParser(prog="bench-sim.sh")
ap.add_argument("--ccsim", default="build/ccsim")
ap.add_argument("--limit", type=float, default=120.0)
ap.add_argument("--quick", action="store_true")
ap.add_argument("--algorithms", default="")
ap.add_argument("--sections", default="bert,70b,large,advise")
a = ap.parse_args()
sections = a.sections.split(",")
if any(x not in ("bert", "70b", "large", "advise") for x in sections):
    sys.exit("bench-sim.sh: --sections: a comma-separated list of bert, 70b, large, advise")
if not (a.limit > 0 and a.limit <= 86400):
    sys.exit("bench-sim.sh: --limit: must be in (0, 86400] seconds")

# The JSON listing: the table wraps long descriptions onto lines of their own, whose first word is not a name.
listing = json.loads(subprocess.run([a.ccsim, "list", "algorithms", "--format", "json"], capture_output=True,
                                    text=True, check=True).stdout)
algos = [x["name"] for x in listing["algorithms"] if "[train only]" not in x["description"]]
if a.algorithms:
    wanted = a.algorithms.split(",")
    unknown = [x for x in wanted if x not in algos]
    if unknown:
        sys.exit(f"bench-sim.sh: --algorithms: unknown {', '.join(unknown)} (ccsim list algorithms)")
    algos = wanted
PIPELINED = {"aq-sgd", "directq", "fp32-pipeline"}

cases = []  # (algorithm, workload, topology, GPUs, fidelity)
if "bert" in sections:
    for gpus in ([1024] if a.quick else [64, 256, 1024]):
        for fid in ("fast", "exact"):
            cases += [(alg, "bert-xl", "a100x8-ib100", gpus, fid) for alg in algos]
    for gpus in ([16384] if a.quick else [4096, 16384]):
        cases += [(alg, "bert-xl", "a100x8-fattree16k", gpus, "fast") for alg in algos]
LLAMA_ALGOS = [x for x in ("adam", "onebit-adam", "onebit-lamb", "slamb", "sdp4bit", "megatron-dp", "aq-sgd")
               if x in algos]
if "70b" in sections:
    for topo, gpus in ([("a100x8-ib100", 1024)] if a.quick else
                       [("h800x8-ib400x8", 128), ("a100x8-ib100", 256), ("a100x8-ib100", 1024)]):
        cases += [(alg, "llama2-70b", topo, gpus, "fast") for alg in LLAMA_ALGOS]

def run(alg, workload, topo, gpus, fid):
    cmd = [a.ccsim, "simulate", "--algorithm", alg, "--workload", workload, "--topology", topo, "--gpus", str(gpus),
           "--fidelity", fid, "--format", "json", "--quiet",
           "--time-limit", f"{a.limit:g}", "--allow-oom"]  # speed, not memory, is measured here
    if workload == "bert-xl":
        cmd += ["--global-batch", str(gpus * 64)] + (["--pp", "4"] if alg in PIPELINED else [])
    else:  # a 70B-class 3D-parallel step: tp 8 x pp 4, 1,024 samples (256 micro-batches of 1 per replica at dp 4)
        cmd += ["--global-batch", "1024", "--tp", "8", "--pp", "4"]
    # ru_maxrss of RUSAGE_CHILDREN is the largest of all waited-for descendants: run each case in its own
    # python child so that the peak belongs to this case only.
    probe = ("import resource,subprocess,sys,json;"
             "p=subprocess.run(sys.argv[1:],capture_output=True,text=True);"
             "print(json.dumps({'rc':p.returncode,'out':p.stdout,'err':p.stderr[-400:],"
             "'rss':resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))")
    r = json.loads(subprocess.run([sys.executable, "-c", probe] + cmd, capture_output=True, text=True).stdout)
    rss = r["rss"] / 1024
    if r["rc"] == 3:
        return f"> {a.limit:g} s", "", f"{rss:.0f}", ""
    if r["rc"] != 0:
        return "error", "", "", r["err"].strip().splitlines()[-1] if r["err"].strip() else f"exit {r['rc']}"
    d = json.loads(r["out"])
    return f"{d['sim']['wall_s']:.3f}", str(d["sim"].get("events", "")), f"{rss:.0f}", f"{d['step_time_s']:.4f}"

load = os.getloadavg()
print(f"ccsim bench-sim: {os.cpu_count()} cores, load average {load[0]:.2f} at start, per-run limit {a.limit:g} s")
print()
if cases:
    print("| algorithm | workload | topology | GPUs | fidelity | sim.wall_s | events | peak RSS (MiB) | step (s) |")
    print("|---|---|---|---|---|---|---|---|---|")
for alg, workload, topo, gpus, fid in cases:
    wall, events, rss, step = run(alg, workload, topo, gpus, fid)
    print(f"| {alg} | {workload} | {topo} | {gpus} | {fid} | {wall} | {events} | {rss} | {step} |", flush=True)

# The large-model validation cases, laid out as their experiment files say (a path there is relative to experiments/).
if "large" in sections:
    def in_experiments(v):
        return f"experiments/{v}" if isinstance(v, str) and v.endswith(".json") else v
    large = []  # (label, settings)
    for name in ("korthikanti-table5", "korthikanti-table5-vpp", "llama3-table4", "mtnlg-530b", "bloom-176b"):
        e = json.load(open(f"experiments/{name}.json"))
        for row in e["rows"]:
            merged = {**e["base"], **{k: v for k, v in row.items() if k not in ("label", "paper", "comment")}}
            large.append((f"{name}: {row['label']}", merged))
    large.append(("1T GPT, tp 8 x pp 64 x dp 6 (512 micro-batches per replica)",
                  {"topology": "a100x8-ib200x8", "workload": "large-scale/gpt-1t-selective.json",
                   "algorithm": "megatron-dp", "gpus": 3072, "tp": 8, "pp": 64, "global_batch": 3072,
                   "micro_batch": 1}))
    print()
    print("| large-model case | GPUs | sim.wall_s | events | step (s) |")
    print("|---|---|---|---|---|")
    for label, k in large:
        cmd = [a.ccsim, "simulate", "--format", "json", "--quiet", "--allow-oom", "--time-limit", f"{a.limit:g}"]
        for key, flag in (("topology", "--topology"), ("workload", "--workload"), ("algorithm", "--algorithm"),
                          ("gpus", "--gpus"), ("tp", "--tp"), ("pp", "--pp"), ("vpp", "--vpp"),
                          ("global_batch", "--global-batch"), ("micro_batch", "--micro-batch")):
            if key in k:
                cmd += [flag, str(in_experiments(k[key]))]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            print(f"| {label} | {k.get('gpus', '')} | error | {p.stderr.strip()[-200:]} | |", flush=True)
            continue
        d = json.loads(p.stdout)
        print(f"| {label} | {k.get('gpus', '')} | {d['sim']['wall_s']:.3f} | {d['sim'].get('events', '')} | "
              f"{d['step_time_s']:.3f} |", flush=True)

# advise --search: every algorithm at every split of a Llama model, pruned (process wall seconds, 2 jobs).
if "advise" in sections:
    print()
    print("| advise --search | topology | GPUs | wall (s) | candidates | simulated | pruned by memory | pruned by bound |")
    print("|---|---|---|---|---|---|---|---|")
    for workload, gpus in ([("llama2-7b", 256)] if a.quick else
                           [("llama2-7b", 256), ("llama2-7b", 1024), ("llama2-70b", 256), ("llama2-70b", 1024)]):
        cmd = [a.ccsim, "advise", "--search", "--workload", workload, "--topology", "a100x8-ib100", "--gpus", str(gpus),
               "--jobs", "2", "--format", "json", "--quiet", "--time-limit", f"{a.limit:g}"]
        t0 = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.monotonic() - t0
        if p.returncode != 0:
            print(f"| {workload} | a100x8-ib100 | {gpus} | error | {p.stderr.strip()[-200:]} | | | |", flush=True)
            continue
        e = json.loads(p.stdout)["evaluation"]
        shown = f"> {a.limit:g} (partial)" if e["partial"] else f"{wall:.1f}"
        print(f"| {workload} | a100x8-ib100 | {gpus} | {shown} | {e['candidates']} | {e['simulated']} | "
              f"{e['pruned_by_memory']} | {e['pruned_by_bound']} |", flush=True)
PY
