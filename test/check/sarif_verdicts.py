"""Prints each result of a SARIF log that `torchalias report` wrote as
'file:line rule verdict [suppressed=kind/status]', in line order."""
import json
import sys

rows = []
for run in json.load(open(sys.argv[1]))["runs"]:
    for result in run["results"]:
        location = result["locations"][0]["physicalLocation"]
        line = location["region"]["startLine"]
        row = "%s:%d %s %s" % (location["artifactLocation"]["uri"], line, result["ruleId"],
                               result["properties"]["torchalias/verdict"])
        for suppression in result.get("suppressions", []):
            row += " suppressed=%s/%s" % (suppression["kind"], suppression["status"])
        rows.append((line, row))
print("\n".join(row for _, row in sorted(rows)))
