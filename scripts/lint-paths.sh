#!/usr/bin/env bash
# Keeps the repository self-contained and free of one machine's paths (issue 39). Fails, naming file:line, when
#   - any text file holds a machine's own path (/work/..., /root/..., /home/..., /Users/..., /scratch/..., /mnt/...):
#     a preset or a comment that cites a scratch file cannot be followed by anyone else;
#   - a data file (.json, .csv, .md, .txt under topologies/, workloads/, experiments/) holds any absolute path
#     (/usr/, /etc/, /opt/, /tmp/, /var/ too): presets travel with the package, so every path in them is relative;
#   - a file cites a repository path (docs/..., sim/..., tests/..., ending in .md, .hpp, .cpp, .py, .json, ...) that
#     does not exist: a renamed or never-committed file. docs/design/ (the design card and research notes as agreed,
#     which name the design's own example files) is not checked for this. tests/lint/ (this rule's fixtures) and this
#     script are not checked at all.
# Usage: scripts/lint-paths.sh [SOURCE_DIR]
set -uo pipefail
root="${1:-$(dirname "$0")/..}"
cd "$root" || exit 2
exec python3 - <<'PY'
import os, re, subprocess, sys

def tracked():
    try:
        out = subprocess.run(["git", "ls-files", "-z"], capture_output=True, check=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for top, dirs, names in os.walk("."):
        dirs[:] = [d for d in dirs if not d.startswith(".") and not d.startswith("build")]
        found += [os.path.relpath(os.path.join(top, n)) for n in names]
    return sorted(found)

TEXT = (".cpp", ".hpp", ".cu", ".cuh", ".h", ".py", ".sh", ".md", ".json", ".txt", ".csv", ".toml", ".cmake", ".ipynb")
MACHINE = re.compile(r"(?<![\w.~-])/(?:work|root|home|Users|scratch|mnt)/[\w.-]")
ABSOLUTE = re.compile(r"(?<![\w.~-])/(?:usr|etc|opt|tmp|var|work|root|home|Users|scratch|mnt)/[\w.-]")
FOLDERS = "docs|topologies|workloads|experiments|scripts|plots|tests|sim|api|cli|algorithms|numerics|io|python|examples"
CITED = re.compile(r"(?<![\w/.-])((?:%s)/[A-Za-z0-9_./-]*[A-Za-z0-9_]\.(?:md|hpp|cpp|cuh|cu|py|sh|json|csv|txt|ipynb))(?![\w])"
                   % FOLDERS)
DATA = ("topologies/", "workloads/", "experiments/")

status = 0
def report(path, line, what):
    global status
    print(f"lint-paths: {path}:{line}: {what}", file=sys.stderr)
    status = 1

for path in tracked():
    # tests/lint/ holds this rule's fixtures and their test, and this script names the paths it bans.
    if not path.endswith(TEXT) or not os.path.isfile(path) or path.startswith("tests/lint/") or path == "scripts/lint-paths.sh":
        continue
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except (UnicodeDecodeError, OSError):
        continue
    data = path.startswith(DATA) and path.endswith((".json", ".csv", ".md", ".txt"))
    for n, text in enumerate(lines, 1):
        for m in (ABSOLUTE if data else MACHINE).finditer(text):
            report(path, n, f"holds the absolute path {text[m.start():m.start() + 40]!r}")
        if path.startswith("docs/design/"):
            continue
        for m in CITED.finditer(text):
            if not os.path.exists(m.group(1)):
                report(path, n, f"cites {m.group(1)}, which is not in the repository")

if status == 0:
    print("lint-paths: clean")
sys.exit(status)
PY
