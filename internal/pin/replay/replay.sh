#!/usr/bin/env bash
# replay.sh: replay the bot commits of a local copy of a real repository
# through `pinbot evaluate`, offline (issue 23, item 6).
#
#   replay.sh PINBOT REPO ECOSYSTEM N
#
# PINBOT is a built pinbot binary, REPO a git repository (a bare mirror is
# enough: nothing is checked out), ECOSYSTEM the ADR ecosystem name, N the
# number of most recent Dependabot or Renovate commits to replay. For each
# commit C, two pull requests C^..C are evaluated, each with one ADR pin
# added on both sides (git plumbing; blobs the copy lacks are left out):
#   - "moved": a pin of the first package of the ecosystem the commit moves,
#     at its old version; a correct verdict blocks (block or pending).
#   - "unrelated": a pin of a package the commit does not touch; a correct
#     verdict is not-applicable, a block is a false block.
# It prints one line per commit and a summary line:
#   ECOSYSTEM commits=N blocks=B missed=M moved-errors=E false-blocks=F unrelated-errors=U
set -euo pipefail
pinbot=$1 repo=$2 eco=$3 n=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q --bare --shared "$repo" "$work/r.git"
export GIT_DIR=$work/r.git GIT_WORK_TREE=$work/wt GIT_INDEX_FILE=$work/index
export GIT_AUTHOR_NAME=replay GIT_AUTHOR_EMAIL=replay@example.com GIT_COMMITTER_NAME=replay GIT_COMMITTER_EMAIL=replay@example.com
mkdir -p "$work/wt"

# tree TREEISH ADRBLOB: the tree with adr/0001-pin.md added and blobs the copy lacks removed.
tree() {
	rm -f "$GIT_INDEX_FILE"
	git read-tree "$1"
	git update-index --add --cacheinfo "100644,$2,adr/0001-pin.md"
	git ls-files -s | awk '{print $2}' | git cat-file --batch-check | awk '$2=="missing"{print $1}' >"$work/missing"
	if [ -s "$work/missing" ]; then
		git ls-files -s | grep -F -f "$work/missing" | cut -f2 | xargs -r git update-index --force-remove
	fi
	git write-tree
}

# evaluate COMMIT PACKAGE VERSION: prints the verdict, leaves the JSON in $work/out.json.
evaluate() {
	local c=$1 pkg=$2 ver=$3 adr bt ht bc hc
	adr=$(printf -- '---\nstatus: accepted\ndate: 2026-01-01\npins:\n  - ecosystem: %s\n    package: %s\n    version: %s\n---\n# 1. Pin %s\n\n## Decision\n\nHold it.\n' \
		"$eco" "$pkg" "$ver" "$pkg" | git hash-object -w --stdin)
	bt=$(tree "$c^" "$adr")
	ht=$(tree "$c" "$adr")
	bc=$(echo base | git commit-tree "$bt" -p "$c^")
	hc=$(git log -1 --format=%B "$c" | git commit-tree "$ht" -p "$bc")
	git update-ref refs/heads/replay-base "$bc"
	git update-ref refs/heads/replay-head "$hc"
	(unset GIT_WORK_TREE GIT_INDEX_FILE; "$pinbot" evaluate --repo "$GIT_DIR" --base replay-base --head replay-head -o json >"$work/out.json" 2>/dev/null) || true
	jq -r '.verdict' "$work/out.json"
}

commits=0 blocks=0 missed=0 moved_errors=0 false_blocks=0 unrelated_errors=0
for c in $(git log --format='%h %an' -n 3000 | awk 'tolower($2) ~ /^(dependabot|renovate)/ {print $1}'); do
	[ "$commits" -ge "$n" ] && break
	u=$(evaluate "$c" "replay-unrelated-package" "1.0.0")
	# The first package of the ecosystem the commit moves from one version
	# (not a range) to another (Maven and Gradle share coordinates).
	read -r pkg old < <(jq -r --arg e "$eco" '[.changes[] | select((.ecosystem == $e or ($e == "maven" and .ecosystem == "gradle") or ($e == "gradle" and .ecosystem == "maven")) and .old != "" and .new != "" and (.old | test("^[=v\\[^~]*[0-9][^ ,|<>]*$")))] | first // empty | "\(.package) \(.old)"' "$work/out.json") || true
	[ -z "${pkg:-}" ] && continue
	old=$(echo "$old" | sed -E 's/^[=^~v\[]+//; s/\]$//; s/ .*//')
	m=$(evaluate "$c" "$pkg" "$old")
	commits=$((commits + 1))
	case $m in block | pending) blocks=$((blocks + 1)) ;; error) moved_errors=$((moved_errors + 1)) ;; *) missed=$((missed + 1)) ;; esac
	case $u in block | pending) false_blocks=$((false_blocks + 1)) ;; error) unrelated_errors=$((unrelated_errors + 1)) ;; esac
	echo "$c $pkg $old: moved=$m unrelated=$u"
	unset pkg old
done
echo "$eco commits=$commits blocks=$blocks missed=$missed moved-errors=$moved_errors false-blocks=$false_blocks unrelated-errors=$unrelated_errors"
