"""make_records.py LOG OUT [LINE=VERDICT | torn | anonymous]...: writes the
JSON Lines report an instrumented run would write, one record per argument,
for the finding of LOG on source line LINE (its identity; the record's own
line is deliberately a different one, as in an edited copy). `torn` appends
a line cut short, `anonymous` a record of a hand-written validator."""
import json
import sys

log, out, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
by_line = {}
for result in json.load(open(log))["runs"][0]["results"]:
    line = result["locations"][0]["physicalLocation"]["region"]["startLine"]
    by_line[line] = (result["partialFingerprints"]["torchalias/v1"], result["ruleId"])

with open(out, "a") as report:
    for seq, spec in enumerate(specs):
        if spec == "torn":
            report.write('{"version":1,"site":"src/sites.cpp:1')
            continue
        finding, check, verdict = None, "libtorch-inplace-on-view", "confirmed"
        if spec != "anonymous":
            line, verdict = spec.split("=")
            finding, check = by_line[int(line)]
        record = {"version": 1, "site": "copy/src/sites.cpp:999:" + check,
                  "file": "copy/src/sites.cpp", "line": 999, "check": check,
                  "verdict": verdict, "facts": {"is_view": True, "sizes": [2, 8]},
                  "pid": 4242, "tid": 4242, "seq": seq}
        if finding:
            record["finding"] = finding
        report.write(json.dumps(record) + "\n")
