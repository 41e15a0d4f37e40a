#!/usr/bin/env bash
# Before/after comparison of everything ccsim prints and writes, for refactors that must not change an answer.
#
#   scripts/compare-outputs.sh capture DIR [--ccsim build/ccsim]   # run the battery, keep every output under DIR
#   scripts/compare-outputs.sh diff BEFORE AFTER                   # byte-compare two captures; exit 1 on a difference
#
# The battery: every experiment (results.json, results.csv and the printed table), `simulate` for every algorithm on
# four topologies (JSON and table; pipelined algorithms at pp 4, sharded ones on gpt-1.3b), --links / --trace /
# stragglers runs, `advise` (with and without --search), `validate`, `collective` (every op, both fidelities, table,
# JSON and CSV), `calibrate` (--nccl-tests and --steps), short `train` runs (MLP, transformer, fine-tuning with a
# private cache), `list`, and a few rejected inputs (stderr and exit code). Wall-clock seconds are the one thing that
# may differ between two runs of one binary: "wall_s" values in JSON and the "in X s wall" / "wall (s)" cells of
# tables are masked before writing (and the checksum of each results.jsonl line, which covers them). Takes about two
# minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import json, os, re, shutil, subprocess, sys, tempfile

def usage():
    sys.exit("usage: compare-outputs.sh capture DIR [--ccsim BIN] | diff BEFORE AFTER")

def mask_json(v):
    if isinstance(v, dict):
        return {k: (0 if k in ("wall_s",) else mask_json(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [mask_json(x) for x in v]
    return v

def mask_text(text):
    text = re.sub(r"in [0-9.]+ s wall", "in <wall> s wall", text)
    # train's table: the last column is wall seconds
    lines = text.splitlines(keepends=True)
    if lines and lines[0].startswith("algorithm") and "wall (s)" in lines[0]:
        lines = [re.sub(r"[0-9.e+-]+(\s*)$", r"<wall>\1", l) if i >= 2 else l for i, l in enumerate(lines)]
    return "".join(lines)

def normalise(text):
    """JSON documents have wall_s masked (re-dumped with the same indent); anything else has its wall cells masked."""
    stripped = text.strip()
    if stripped.startswith("{") or stripped.startswith("["):
        try:
            return json.dumps(mask_json(json.loads(stripped)), indent=2, sort_keys=False) + "\n"
        except ValueError:
            pass
    return mask_text(text)

def capture(out, ccsim):
    ccsim = os.path.abspath(ccsim)
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    cache = tempfile.mkdtemp(prefix="ccsim-compare-cache-")
    tmp = tempfile.mkdtemp(prefix="ccsim-compare-")
    env = dict(os.environ, CCSIM_CACHE_DIR=cache)
    count = 0

    def run(name, args, files=()):
        nonlocal count
        p = subprocess.run([ccsim] + args + (["--quiet"] if args[0] in LONG else []), capture_output=True, text=True,
                           env=env)
        with open(os.path.join(out, name + ".out"), "w") as f:
            f.write(normalise(p.stdout.replace(tmp, "<tmp>").replace(cache, "<cache>")))
        # stderr: only the lines that are not progress (none under --quiet) and not temp paths
        err = p.stderr.replace(tmp, "<tmp>").replace(cache, "<cache>")
        with open(os.path.join(out, name + ".err"), "w") as f:
            f.write(f"exit {p.returncode}\n{err}")
        for src, dst in files:
            if os.path.exists(src):
                with open(src) as f:
                    text = f.read()
                text = text.replace(tmp, "<tmp>")
                with open(os.path.join(out, name + "." + dst), "w") as g:
                    if dst.endswith(".jsonl"): # one document per line, masked, in point order (points finish
                        # in any order under --jobs 2); a line's checksum covers its wall seconds, so it goes too
                        docs = [mask_json({k: v for k, v in json.loads(l).items() if k != "checksum"})
                                for l in text.splitlines() if l.strip()]
                        g.write("".join(json.dumps(d) + "\n" for d in sorted(docs, key=lambda d: d.get("point", -1))))
                    else:
                        g.write(normalise(text))
        count += 1

    LONG = {"simulate", "experiment", "advise", "validate", "collective", "train"}
    for what in ("topologies", "workloads", "algorithms", "all"):
        run(f"list-{what}", ["list", what])
        run(f"list-{what}-json", ["list", what, "--format", "json"])

    # experiments
    for e in sorted(os.listdir("experiments")):
        if not e.endswith(".json"):
            continue
        n = e[:-5]
        d = os.path.join(tmp, "exp", n)
        run(f"experiment-{n}", ["experiment", n, "--out", d, "--no-plot", "--jobs", "2"],
            [(os.path.join(d, "results.json"), "results.json"), (os.path.join(d, "results.csv"), "results.csv"),
             (os.path.join(d, "results.jsonl"), "results.jsonl")])
    run("experiment-whatif-bandwidth-json", ["experiment", "whatif-bandwidth", "--out", os.path.join(tmp, "w"),
                                             "--no-plot", "--format", "json"])

    # simulate: every algorithm on four topologies
    listing = json.loads(subprocess.run([ccsim, "list", "algorithms", "--format", "json"], capture_output=True,
                                        text=True, check=True).stdout)
    algos = [a["name"] for a in listing["algorithms"] if "[train only]" not in a["description"]]
    pipeline = {"fp32-pipeline", "directq", "aq-sgd"}
    sharded = {"megatron-dp", "sdp4bit", "zeropp", "qw", "qwd", "tlq", "tlq-hs", "ulq"}
    topologies = [("v100x4-eth40g", 64), ("a100x8-ib100", 64), ("h800x8-ib400x8", 32), ("v100x1-wan", 8)]
    for topo, gpus in topologies:
        for a in algos:
            args = ["simulate", "--topology", topo, "--algorithm", a, "--gpus", str(gpus)]
            if a in pipeline:
                args += ["--workload", "gpt2-xl", "--pp", "4"]
            elif a in sharded:
                args += ["--workload", "gpt-1.3b", "--allow-oom"]
            else:
                args += ["--workload", "bert-large", "--allow-oom"]
            run(f"simulate-{topo}-{a}-json", args + ["--format", "json"])
            run(f"simulate-{topo}-{a}", args)
    base = ["simulate", "--topology", "a100x8-ib100", "--workload", "bert-large", "--gpus", "32"]
    run("simulate-links", base + ["--algorithm", "onebit-adam", "--links", "--format", "json"])
    run("simulate-links-table", base + ["--algorithm", "onebit-adam", "--links"])
    run("simulate-trace", base + ["--algorithm", "sdp4bit", "--trace", os.path.join(tmp, "trace.json")],
        [(os.path.join(tmp, "trace.json"), "trace.json")])
    run("simulate-exact", base + ["--algorithm", "onebit-lamb", "--fidelity", "exact", "--format", "json"])
    run("simulate-stragglers", base + ["--algorithm", "adam", "--slow-gpu", "3:0.5", "--straggler-cv", "0.2",
                                       "--format", "json"])
    run("simulate-stragglers-table", base + ["--algorithm", "slamb", "--straggler-cv", "0.1"])
    run("simulate-pipeline-stragglers", ["simulate", "--topology", "v100x1-wan", "--workload", "gpt2-xl",
                                         "--algorithm", "aq-sgd", "--gpus", "8", "--pp", "8", "--slow-gpu", "2:0.7",
                                         "--format", "json"])
    run("simulate-overrides", base + ["--algorithm", "lamb", "--bandwidth-gbps", "7", "--latency-us", "30",
                                      "--network-model", "tcp", "--param", "grad_bytes=4", "--param", "seq_len=256",
                                      "--format", "json"])
    run("simulate-tp-pp", ["simulate", "--topology", "h800x8-ib400x8", "--workload", "gpt-13b", "--algorithm",
                           "sdp4bit", "--gpus", "64", "--format", "json"])
    run("simulate-fattree", ["simulate", "--topology", "a100x8-fattree16k", "--workload", "bert-large",
                             "--algorithm", "onebit-adam", "--gpus", "1024", "--global-batch", "65536",
                             "--format", "json"])
    # rejected inputs
    run("bad-gpus", base[:-2] + ["--gpus", "99999", "--algorithm", "adam"])
    run("bad-algorithm", base + ["--algorithm", "V100"])
    run("bad-param", base + ["--algorithm", "adam", "--param", "k=2"])
    run("bad-batch", base + ["--algorithm", "adam", "--global-batch", "33"])
    run("bad-oom", ["simulate", "--topology", "v100x4-eth40g", "--workload", "gpt-13b", "--algorithm", "adam",
                    "--gpus", "8"])

    # advise
    run("advise", ["advise", "--topology", "v100x4-eth40g", "--workload", "bert-large", "--gpus", "64"])
    run("advise-json", ["advise", "--topology", "v100x4-eth40g", "--workload", "bert-large", "--gpus", "64",
                        "--format", "json"])
    run("advise-gpt", ["advise", "--topology", "a100x4-slingshot100", "--workload", "gpt-1.3b", "--gpus", "32",
                       "--format", "json"])
    run("advise-pipeline", ["advise", "--topology", "v100x1-wan", "--workload", "gpt2-xl", "--gpus", "8",
                            "--format", "json"])
    run("advise-search", ["advise", "--topology", "a100x8-ib100", "--workload", "gpt-350m", "--gpus", "16",
                          "--search", "--format", "json"])
    run("advise-search-table", ["advise", "--topology", "a100x8-ib100", "--workload", "gpt-350m", "--gpus", "16",
                                "--search"])

    # validate
    run("validate-json", ["validate", "--format", "json"])
    run("validate-table", ["validate", "--no-rows", "--topology", "v100x4-eth40g"])

    # collective
    for op in ("all_reduce", "all_gather", "reduce_scatter", "alltoall", "onebit_allreduce"):
        for fid in ("fast", "exact"):
            args = ["collective", "--op", op, "--topology", "a100x8-ib100", "--gpus", "16,32", "-b", "1K",
                    "-e", "64M", "-f", "8", "--fidelity", fid]
            run(f"collective-{op}-{fid}", args)
            run(f"collective-{op}-{fid}-json", args + ["--format", "json"])
    run("collective-csv", ["collective", "--topology", "v100x4-eth40g", "--gpus", "16", "--format", "csv"])
    run("collective-tcp", ["collective", "--topology", "v100x4-eth40g", "--gpus", "64", "-b", "8", "-e", "256M",
                           "-f", "4", "--fidelity", "exact"])

    # calibrate: on a table ccsim itself printed, and on step times
    table = os.path.join(tmp, "nccl.txt")
    with open(table, "w") as f:
        f.write(subprocess.run([ccsim, "collective", "--topology", "v100x8-ib100", "--gpus", "32", "-b", "1K",
                                "-e", "256M", "-f", "4", "--bandwidth-gbps", "70", "--latency-us", "9", "--quiet"],
                               capture_output=True, text=True, check=True).stdout)
    run("calibrate-nccl", ["calibrate", "--topology", "v100x8-ib100", "--nccl-tests", table, "--out",
                           os.path.join(tmp, "cal.json")], [(os.path.join(tmp, "cal.json"), "topology.json")])
    run("calibrate-nccl-json", ["calibrate", "--topology", "v100x8-ib100", "--nccl-tests", table, "--format", "json",
                                "--out", os.path.join(tmp, "cal2.json")])
    run("calibrate-steps", ["calibrate", "--topology", "v100x4-eth40g", "--steps", "onebit-lamb-table5", "--fit",
                            "/nic/effective_gbps", "--out", os.path.join(tmp, "steps.json")],
        [(os.path.join(tmp, "steps.json"), "topology.json")])

    # train (short runs; losses are deterministic on one machine)
    run("train-mlp", ["train", "--algorithm", "adam,onebit-adam,naive-1bit-adam", "--steps", "60", "--format", "json"])
    run("train-mlp-table", ["train", "--algorithm", "lamb,slamb,onebit-lamb", "--steps", "40"])
    run("train-sharded", ["train", "--algorithm", "megatron-dp,sdp4bit", "--steps", "40", "--format", "json"])
    run("train-pipeline", ["train", "--algorithm", "fp32-pipeline,aq-sgd", "--steps", "40", "--param", "pp=4",
                           "--global-batch", "128", "--format", "json"])
    run("train-time", ["train", "--algorithm", "onebit-adam", "--steps", "40", "--topology", "v100x4-eth40g",
                       "--gpus", "64", "--format", "json"])
    run("train-transformer", ["train", "--model", "tiny-transformer", "--algorithm", "adam,onebit-adam",
                              "--steps", "20", "--format", "json"])
    run("train-finetune", ["train", "--model", "tiny-transformer", "--task", "finetune", "--pretrain-steps", "10",
                           "--algorithm", "fp32-pipeline,aq-sgd", "--steps", "10", "--param", "pp=4",
                           "--format", "json"])
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)
    print(f"compare-outputs: {count} commands captured in {out}")

def diff(a, b):
    names = sorted(set(os.listdir(a)) | set(os.listdir(b)))
    bad = 0
    for n in names:
        pa, pb = os.path.join(a, n), os.path.join(b, n)
        if not os.path.exists(pa) or not os.path.exists(pb):
            print(f"only in {'before' if os.path.exists(pa) else 'after'}: {n}")
            bad += 1
            continue
        with open(pa, "rb") as f, open(pb, "rb") as g:
            if f.read() != g.read():
                print(f"differs: {n}")
                d = subprocess.run(["diff", "-u", pa, pb], capture_output=True, text=True).stdout.splitlines()
                print("\n".join(l[:300] for l in d[:40]))
                bad += 1
    print(f"compare-outputs: {len(names) - bad} of {len(names)} files identical")
    sys.exit(1 if bad else 0)

if len(sys.argv) < 3:
    usage()
if sys.argv[1] == "capture":
    ccsim = "build/ccsim"
    if len(sys.argv) == 5 and sys.argv[3] == "--ccsim":
        ccsim = sys.argv[4]
    elif len(sys.argv) != 3:
        usage()
    capture(sys.argv[2], ccsim)
elif sys.argv[1] == "diff" and len(sys.argv) == 4:
    diff(sys.argv[2], sys.argv[3])
else:
    usage()
PY
