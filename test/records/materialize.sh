#!/usr/bin/env bash
# materialize.sh -- write the texts of test/records/testdata/labels.json from the
# repositories' snapshots (issue 35). The texts are other people's files and
# are never committed; this puts them in a cache outside git:
#
#   $RECORDS_DIR/<id>/<path>            the record, at its commit
#   $RECORDS_DIR/<id>/<manifest paths>  the repository's dependency manifests at
#                                       that commit (each under 1 MiB; not under
#                                       node_modules/, vendor/ or .git/)
#   $RECORDS_DIR/<id>/.adr-dir, .log4brains.yml  when the repository has them
#
# Snapshots are found under $MIRROR (default /work/.mirror) by owner+name, as
# the search tool's fetch leaves them (/work/.mirror/<owner>+<name>/repo). A
# record whose snapshot or commit is missing is reported and the script exits 1;
# the others are still written. Records with "source": "index" come from the search
# tool's index, not a snapshot: they are skipped here and checked by
# test/records/index_files.py (see README.md, "Second source: the search index").
#
# Usage: [RECORDS_DIR=/work/records-cache] [MIRROR=/work/.mirror] test/records/materialize.sh [labels.json]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
export LABELS=${1:-$HERE/testdata/labels.json}
export RECORDS_DIR=${RECORDS_DIR:-/work/records-cache}
export MIRROR=${MIRROR:-/work/.mirror}
exec python3 - <<'PY'
import fnmatch, json, os, shutil, subprocess, sys

LABELS, OUT, MIRROR = os.environ["LABELS"], os.environ["RECORDS_DIR"], os.environ["MIRROR"]
MAX = 1 << 20
# Base names of the manifests pinbot reads (docs/ecosystems.md).
BASE = ["go.mod", "package.json", "package-lock.json", "yarn.lock", "pnpm-lock.yaml",
        "requirements*.txt", "pyproject.toml", "Pipfile", "Cargo.toml", "Gemfile",
        "composer.json", "pom.xml", "build.gradle*", "settings.gradle*", "*.csproj",
        "Directory.Packages.props", "packages.config", "Dockerfile*", "docker-compose*.yml",
        "docker-compose*.yaml", "compose*.yml", "compose*.yaml", "Chart.yaml", "*.tf",
        ".tool-versions", ".nvmrc", "helmfile*.yaml",
        "pnpm-workspace.yaml",
        # inputs of the ecosystems' resolution (ADR 0401): MSBuild's
        # central files, Maven's configuration
        "Directory.Build.props", "Directory.Build.targets", "maven.config",
        # read for grounding only (ADR 0362): Argo CD values and Applications
        "values*.yaml", "values*.yml", "*application*.yaml", "*application*.yml"]
SKIP = ("node_modules", "vendor", ".git")

def is_manifest(p):
    if any(seg in SKIP for seg in p.split("/")[:-1]):
        return False
    b = os.path.basename(p)
    if p.endswith("gradle/libs.versions.toml") or p == "libs.versions.toml":
        return True
    d = os.path.dirname(p)
    if d == ".github/workflows" and (b.endswith(".yml") or b.endswith(".yaml")):
        return True
    return any(fnmatch.fnmatchcase(b, g) for g in BASE)

def gitdir(repo):
    base = os.path.join(MIRROR, repo.replace("/", "+"))
    if not os.path.isdir(base):
        return None
    for root, dirs, files in os.walk(base):
        if "HEAD" in files and "objects" in dirs:
            return root
        if root.count(os.sep) - base.count(os.sep) >= 2:
            dirs[:] = []
    return None

def git(g, *a, binary=False):
    return subprocess.run(["git", "--git-dir", g, *a], check=True, capture_output=True,
                          text=not binary).stdout

recs = json.load(open(LABELS))
bad = []
index = [e for e in recs if e.get("source") == "index"]
recs = [e for e in recs if e.get("source") != "index"]
for e in recs:
    g = gitdir(e["repo"])
    if not g:
        bad.append("%s: no snapshot of %s under %s (fetch github:%s)" % (e["id"], e["repo"], MIRROR, e["repo"]))
        continue
    c = e["commit"]
    if subprocess.run(["git", "--git-dir", g, "cat-file", "-e", c + ":" + e["path"]], capture_output=True).returncode:
        bad.append("%s: %s has no %s at %s" % (e["id"], e["repo"], e["path"], c))
        continue
    d = os.path.join(OUT, e["id"])
    shutil.rmtree(d, ignore_errors=True)
    files = [e["path"]]
    for line in git(g, "ls-tree", "-r", "-l", c).splitlines():
        meta, path = line.split("\t", 1)
        kind, size = meta.split()[1], meta.split()[3]
        if kind != "blob" or not size.isdigit() or int(size) >= MAX:
            continue
        if path in (".adr-dir", ".log4brains.yml") or is_manifest(path):
            files.append(path)
    for p in dict.fromkeys(files):
        dst = os.path.join(d, p)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(git(g, "show", "%s:%s" % (c, p), binary=True))
    print("%-40s %s %s (+%d files)" % (e["id"], e["repo"], e["path"], len(dict.fromkeys(files)) - 1))
for b in bad:
    print("MISSING " + b, file=sys.stderr)
print("%d of %d records written to %s" % (len(recs) - len(bad), len(recs), OUT))
if index:
    print("%d records come from the search index: check them with test/records/index_files.py check" % len(index))
sys.exit(1 if bad else 0)
PY
