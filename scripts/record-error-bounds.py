#!/usr/bin/env python3
"""Record each calibration table's error bounds in its experiment file (issue 48), from a run's results.json.

usage: scripts/record-error-bounds.py EXPERIMENT.json RESULTS.json [--validation-table] [--reason-for LABEL METRIC TEXT]...

The table's default bound, the field "error_bound" beside "source": 3 x the table's median |error| today, at least 5 %.
A paper value over that default gets a bound of its own in its row ("error_bound": {metric: {...}}): its |error| today
rounded up, plus 2 points, with the reason given by --reason-for (required: a bound without a reason is refused).
--validation-table: a table too small for a median rule (the large-model validation rows of issue 40): every value's
bound is the largest |error| today rounded up plus 5 points.
The file is edited as text (its own indentation kept); a table that already has an "error_bound" is refused.
"""
import json
import math
import re
import statistics
import sys


def main(argv):
    path, results = argv[0], argv[1]
    validation = "--validation-table" in argv
    reasons = {}
    i = 2
    while i < len(argv):
        if argv[i] == "--reason-for":
            reasons[(argv[i + 1], argv[i + 2])] = argv[i + 3]
            i += 4
        else:
            i += 1
    text = open(path, encoding="utf-8").read()
    if '"error_bound"' in text:
        sys.exit(f"{path}: already has error bounds")
    rows = json.load(open(results, encoding="utf-8"))["rows"]
    errors = [(abs(e), r.get("label", ""), m) for r in rows for m, e in r.get("error_pct", {}).items()]
    median = statistics.median(e for e, _, _ in errors)
    if validation:
        default = math.ceil(max(e for e, _, _ in errors)) + 5
        why = (f"a validation table of {len(errors)} value(s), too few for a median rule: its largest |error| when "
               f"recorded ({max(e for e, _, _ in errors):.1f} %, issue 48) rounded up, plus 5 points")
    else:
        default = round(max(5.0, 3 * median), 1)
        why = (f"3 x the table's median |error| when recorded ({median:.2f} %, issue 48), at least 5 %")
    own = {}
    for e, label, metric in errors:
        if e > default:
            if (label, metric) not in reasons:
                sys.exit(f"{path}: {label} {metric} at {e:.1f} % is over the default {default} %: give --reason-for")
            own.setdefault(label, {})[metric] = {"pct": math.ceil(e) + 2, "reason": reasons[(label, metric)] +
                                                 f"; {e:.1f} % when recorded, bound rounded up plus 2 points"}
    # The default after the top-level "source" line, in the file's own indentation.
    m = re.search(r'^( +)"source": .*,\n', text, re.M)
    ind = m.group(1)
    bound = json.dumps({"pct": default, "reason": why}, ensure_ascii=False)
    text = text[:m.end()] + f'{ind}"error_bound": {bound},\n' + text[m.end():]
    for label, metrics in own.items():
        at = text.index(f'"label": {json.dumps(label, ensure_ascii=False)}')
        paper = re.compile(r'^( +)"paper": ', re.M).search(text, at)
        line = f'{paper.group(1)}"error_bound": {json.dumps(metrics, ensure_ascii=False)},\n'
        text = text[:paper.start()] + line + text[paper.start():]
    json.loads(text)  # still valid JSON
    open(path, "w", encoding="utf-8").write(text)
    print(f"{path}: default {default} %, {sum(len(v) for v in own.values())} row bound(s) of their own")


if __name__ == "__main__":
    main(sys.argv[1:])
