#!/usr/bin/env python3
"""split.py -- split labels.json once, at random, into the tune and test halves (issue 35).

Records are split by repository (one repository's records never straddle the
halves): the repositories are sorted, shuffled with random.Random(SEED), and
each in turn goes to the half that has fewer records so far (ties: tune).
It refuses to run when any record already has a split: the split is done once
and never redone. The seed is recorded in test/records/README.md.

--add: records labelled after the split (empty "split") are assigned the same
way, repository by repository, among the new repositories only (sorted, shuffled
with the same seed, each to the half with fewer records so far); a new record
of a repository that already has a half goes to that half. Nothing assigned
before changes.
"""
import json, random, sys

SEED = 20261205
args = [a for a in sys.argv[1:] if a != "--add"]
add = "--add" in sys.argv[1:]
path = args[0] if args else "test/records/testdata/labels.json"
recs = json.load(open(path))
if any(r.get("split") for r in recs) and not add:
    sys.exit("split.py: %s is already split; the split is done once and never redone (--add assigns new records)" % path)
half = {r["repo"]: r["split"] for r in recs if r.get("split")}
n = {"tune": 0, "test": 0}
for r in recs:
    if r.get("split"):
        n[r["split"]] += 1
repos = sorted({r["repo"] for r in recs if not r.get("split") and r["repo"] not in half})
random.Random(SEED).shuffle(repos)
count = {r: sum(1 for x in recs if x["repo"] == r and not x.get("split")) for r in repos}
for r in repos:
    h = "tune" if n["tune"] <= n["test"] else "test"
    half[r] = h
    n[h] += count[r]
for r in recs:
    if not r.get("split"):
        r["split"] = half[r["repo"]]
with open(path, "w") as f:
    json.dump(recs, f, indent=1, ensure_ascii=False)
    f.write("\n")
for h in ("tune", "test"):
    sel = [r for r in recs if r["split"] == h]
    print("%s: %d records, %d positive, %d pins, %d repositories" % (
        h, len(sel), sum(r["kind"] == "positive" for r in sel),
        sum(len(r["expected_pins"]) for r in sel), len({r["repo"] for r in sel})))
