"""instrumented_ids.py LOG COPY COUNT: the finding identities that the
validators in COPY carry are those of LOG's results, COUNT distinct ones."""
import json
import re
import sys

log, copy, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
known = {result["partialFingerprints"]["torchalias/v1"]
         for run in json.load(open(log))["runs"] for result in run["results"]}
used = set(re.findall(r'TORCHALIAS_AT_\w+\("([0-9a-f]+)"', open(copy).read()))
if not used <= known:
    sys.exit("identities not in the log: %s" % sorted(used - known))
if len(used) != count:
    sys.exit("%d distinct identities in the copy, expected %d" % (len(used), count))
print("identities: %d, all from the log" % len(used))
