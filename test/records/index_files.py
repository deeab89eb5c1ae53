#!/usr/bin/env python3
"""index_files.py -- the second source of test/records texts: the search index (issue 35).

Most records are written by materialize.sh from a repository's git snapshot. A record
whose repository has no snapshot can still be used when the search tool's index holds
the record and the repository's manifests at ONE commit: its labels.json entry then has

  "source": "index",
  "commit": the commit the index stores the record at,
  "index_files": [{"path", "commit", "chars", "sha256"}, ...]   the record and every
      manifest materialize.sh would take (same file-name rules), each read with the
      search tool's read_file(repo, path, commit) at that same commit,
  "index_omitted": [{"path", "reason"}, ...]   manifests of the repository's file listing
      (find_files repo=...) that are NOT materialized: not stored at the record's commit
      (never taken from another commit), or too large to copy by hand.

read_file cannot be called from a script, so the texts are written into the cache by
hand (exactly the text read_file returns, as UTF-8) at RECORDS_DIR/<id>/<path>, the layout
materialize.sh uses. This script checks them and says what is missing:

  test/records/index_files.py check [--labels L] [--texts DIR]
      every index record's files present with the recorded length (characters) and
      SHA-256; prints the read_file calls that re-create a missing or different one; exit 1
  test/records/index_files.py calls [--labels L] [ID ...]
      prints the read_file calls of the named (default: all) index records
  test/records/index_files.py stamp ID [--labels L] [--texts DIR]
      fills "chars" and "sha256" of ID's index_files from the cache (once, when the
      record is added, after checking each length against read_file's total_chars)

Standard library only. The texts are other people's files: never commit them.
"""
import hashlib, json, os, sys

def args():
    a = sys.argv[1:]
    opts = {"--labels": os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata", "labels.json"),
            "--texts": os.environ.get("RECORDS_DIR", "/work/records-cache")}
    rest = []
    i = 0
    while i < len(a):
        if a[i] in opts and i + 1 < len(a):
            opts[a[i]] = a[i + 1]
            i += 2
        else:
            rest.append(a[i])
            i += 1
    if not rest or rest[0] not in ("check", "calls", "stamp"):
        sys.exit(__doc__)
    return rest[0], rest[1:], opts["--labels"], opts["--texts"]

def call(r, f):
    return 'read_file repo=%s path=%s commit=%s  ->  %s/%s' % (r["repo"], f["path"], f["commit"], r["id"], f["path"])

def main():
    cmd, ids, labels, texts = args()
    recs = json.load(open(labels, encoding="utf-8"))
    idx = [r for r in recs if r.get("source") == "index"]
    if cmd == "calls":
        for r in idx:
            if not ids or r["id"] in ids:
                for f in r["index_files"]:
                    print(call(r, f))
        return 0
    if cmd == "stamp":
        if len(ids) != 1:
            sys.exit("stamp takes one record id")
        hit = [r for r in idx if r["id"] == ids[0]]
        if not hit:
            sys.exit("%s: no index record of that id" % ids[0])
        for f in hit[0]["index_files"]:
            if f["commit"] != hit[0]["commit"]:
                sys.exit("%s: %s is at %s, not the record's commit" % (ids[0], f["path"], f["commit"]))
            b = open(os.path.join(texts, ids[0], f["path"]), "rb").read()
            f["chars"] = len(b.decode("utf-8"))
            f["sha256"] = hashlib.sha256(b).hexdigest()
        with open(labels, "w", encoding="utf-8") as out:
            json.dump(recs, out, indent=1, ensure_ascii=False)
            out.write("\n")
        print("%s: %d files stamped" % (ids[0], len(hit[0]["index_files"])))
        return 0
    bad = 0
    for r in idx:
        if ids and r["id"] not in ids:
            continue
        paths = [f["path"] for f in r["index_files"]]
        if r["path"] not in paths:
            print("%s: the record itself is not among index_files" % r["id"])
            bad += 1
        for f in r["index_files"]:
            p = os.path.join(texts, r["id"], f["path"])
            why = ""
            if f["commit"] != r["commit"]:
                why = "at another commit than the record"
            elif not os.path.isfile(p):
                why = "missing"
            else:
                b = open(p, "rb").read()
                if hashlib.sha256(b).hexdigest() != f.get("sha256") or len(b.decode("utf-8")) != f.get("chars"):
                    why = "differs from the text read (length or SHA-256)"
            if why:
                bad += 1
                print("%s: %s %s; re-create with: %s" % (r["id"], f["path"], why, call(r, f)))
    n = len([r for r in idx if not ids or r["id"] in ids])
    print("%d index records, %d files wrong or missing under %s" % (n, bad, texts))
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
