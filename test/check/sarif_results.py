"""Prints a SARIF log's results as 'rule file:line:column', sorted, with each
result's rule resolved through its ruleIndex: what must not change when
shards are merged."""
import json
import sys

log = json.load(open(sys.argv[1]))
lines = []
for run in log["runs"]:
    rules = run["tool"]["driver"]["rules"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"], result
        location = result["locations"][0]["physicalLocation"]
        region = location["region"]
        lines.append("%s %s:%d:%d" % (result["ruleId"], location["artifactLocation"]["uri"],
                                      region["startLine"], region["startColumn"]))
print("\n".join(sorted(lines)))
