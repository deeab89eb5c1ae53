#!/usr/bin/env bash
# replay.sh replays the Dependabot and Renovate commits of local git
# repositories through `pinbot evaluate`, offline, and prints one row per
# ecosystem: commits, correct blocks, missed moves, false blocks, errors.
#
# Usage: replay.sh [-n MAX] [-p PINBOT] GITDIR...
#
# Each GITDIR is a git repository (bare or not); it is only read: the replay
# works in a scratch clone (git clone --shared) under $TMPDIR. For every bot
# commit C (one parent, a message naming "X from A to B") whose changed files
# belong to one ecosystem:
#   move:    base = C^ plus an ADR pinning X at A, head = base plus C
#            (cherry-picked, author and message kept); want block.
#   control: the same, pinning instead another package Y of that ecosystem
#            (one another bot commit of the repository moves, at its "from"
#            version) that C neither names nor shows in its diff; want
#            not-applicable or allow.
# A block of the control is a false block. An error is counted apart when
# the verdict names what could not be resolved ("cannot prove", or an input
# pinbot does not evaluate "which may move the pin": issue 23 item 2) and as
# an error otherwise. Rows go to stdout as TSV; -v prints
# each commit's outcome to stderr.
set -euo pipefail

max=40
pinbot=${PINBOT:-pinbot}
verbose=0
while getopts "n:p:v" o; do
	case $o in
	n) max=$OPTARG ;;
	p) pinbot=$OPTARG ;;
	v) verbose=1 ;;
	*) echo "usage: $0 [-n MAX] [-p PINBOT] [-v] GITDIR..." >&2; exit 3 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-n MAX] [-p PINBOT] [-v] GITDIR..." >&2; exit 3; }

work=$(mktemp -d "${TMPDIR:-/tmp}/replay.XXXXXX")
trap 'rm -rf "$work"' EXIT

# ecosystem_of prints the one ecosystem whose manifests a list of paths
# (stdin) touches, "github-actions" only when nothing else is touched, or
# nothing when the paths span two ecosystems or none.
ecosystem_of() {
	awk '
	function eco(p,  b) {
		b = p; sub(/.*\//, "", b)
		if (p ~ /^\.github\/workflows\// || b == "action.yml" || b == "action.yaml") return "github-actions"
		if (b == "pom.xml" || p ~ /^\.mvn\//) return "maven"
		if (b ~ /\.gradle(\.kts)?$/ || b ~ /\.versions\.toml$/ || b ~ /\.lockfile$/ || b == "gradle.properties") return "gradle"
		if (b ~ /\.(cs|fs|vb)proj$/ || b ~ /^Directory\.(Build|Packages)\.(props|targets)$/ || b == "packages.config" || b == "global.json" || b == "dotnet-tools.json") return "nuget"
		if (b == "Cargo.toml" || b == "Cargo.lock") return "cargo"
		if (b == "Gemfile" || b == "Gemfile.lock" || b ~ /\.gemspec$/ || b == "gems.rb" || b == "gems.locked") return "bundler"
		if (b == "composer.json" || b == "composer.lock") return "composer"
		if (b ~ /\.(tf|tofu)$/ || b == ".terraform.lock.hcl") return "terraform"
		if (b == "package.json" || b == "package-lock.json" || b == "yarn.lock" || b == "pnpm-lock.yaml" || b == "npm-shrinkwrap.json") return "npm"
		if (b ~ /^requirements.*\.(txt|in)$/ || b == "pyproject.toml" || b == "poetry.lock" || b == "uv.lock" || b ~ /^Pipfile/ || b == "setup.cfg" || b == "setup.py") return "pip"
		if (b ~ /^(Docker|Container)file/ || b ~ /\.Dockerfile$/ || b ~ /^(docker-)?compose.*\.ya?ml$/) return "docker"
		if (b == "go.mod" || b == "go.sum" || b == "go.work") return "gomod"
		if (b == "Chart.yaml" || b == "Chart.lock") return "helm"
		return ""
	}
	{ e = eco($0); if (e == "") next; if (e == "github-actions") gha = 1; else seen[e] = 1 }
	END {
		n = 0; for (k in seen) { n++; one = k }
		if (n == 1) print one; else if (n == 0 && gha) print "github-actions"
	}'
}

# moves prints "package<TAB>from<TAB>to" for each update a bot commit
# message names (Dependabot's "Bump X from A to B", "Updates `X` from A to
# B", "Update X requirement from A to B", its group table rows
# "| X | `A` | `B` |").
moves() {
	sed -nE \
		-e 's/^.*([Bb]umps?|[Uu]pdates?|[Uu]pgrades?) (the )?(dependency )?`?\[?([A-Za-z0-9@][A-Za-z0-9@._:\/-]*)\]?(\([^)]*\))?`?( requirement)? from v?([0-9A-Za-z][0-9A-Za-z.+_-]*) to v?([0-9A-Za-z][0-9A-Za-z.+_-]*).*$/\4\t\7\t\8/p' \
		-e 's/^\| *\[?([A-Za-z0-9@][A-Za-z0-9@._:\/-]*)\]?(\([^)]*\))? *\| *`v?([0-9A-Za-z][0-9A-Za-z.+_-]*)` *\| *`v?([0-9A-Za-z][0-9A-Za-z.+_-]*)` *\|.*$/\1\t\3\t\4/p' |
		awk -F'\t' '!seen[$1]++'
}

# renovate_move prints "package<TAB>from<TAB>to" for a Renovate commit
# titled "update X to vB" / "update X docker tag to vB" / "update X action
# to vB", which names no old version: the old one is read from the commit's
# word diff, where the word holding B replaced one of the same shape.
renovate_move() { # dir commit
	local subj pkg to
	subj=$(git -C "$1" log -1 --format=%s "$2")
	read -r pkg to < <(sed -nE 's/^.*[Uu]pdate (dependency |module |image )?([A-Za-z0-9@][A-Za-z0-9@._:\/-]*)( docker tag| docker digest| action| digest)? to v?([0-9][0-9A-Za-z.+_-]*).*$/\2 \4/p' <<<"$subj") || return 0
	[ -n "$to" ] || return 0
	# A group's title ("update angular to v21") names no package the diff
	# shows as a word of its own: no move to pin.
	git -C "$1" diff "$2^" "$2" | grep -qE "(^|[^A-Za-z0-9@._-])$(sed 's/[.[\*^$()+?{|]/\\&/g' <<<"$pkg")([^A-Za-z0-9/._-]|\$)" || return 0
	git -C "$1" diff --word-diff=porcelain "$2^" "$2" 2>/dev/null | perl -ne '
		BEGIN { $to = shift @ARGV }
		chomp;
		if (/^-(.*)/) { $old = $1; next }
		if (/^\+(.*)/ && defined $old) {
			my $new = $1; my $i = index($new, $to);
			if ($i >= 0) {
				my $pre = quotemeta(substr($new, 0, $i));
				if ($old =~ /^${pre}v?([0-9][0-9A-Za-z.+_-]*[0-9A-Za-z])/ && $1 ne $to) { print "$1\n"; exit }
			}
		}
		undef $old if !/^[-+]/;
	' "$to" | head -1 | sed "s|^|$pkg\t|; s|\$|\t$to|" || true # git diff may die of SIGPIPE once perl has its answer
}

pinadr() { # ecosystem package version
	cat <<ADR
---
status: accepted
date: 2026-01-01
pins:
  - ecosystem: $1
    package: "$2"
    version: "$3"
---

# 9901: Pin $2 at $3 (replay)

## Context

Replay.

## Decision

$2 stays at $3.

## Consequences

None.
ADR
}

# evaluate prints the verdict of commit $2 in clone $1 with a pin of $3
# (ecosystem) $4 (package) at $5, and "unresolved" when an error names what
# could not be resolved.
evaluate() {
	local dir=$1 c=$2
	git -C "$dir" checkout -q --detach "$c^" 2>/dev/null || { echo skip; return; }
	mkdir -p "$dir/adr"
	pinadr "$3" "$4" "$5" >"$dir/adr/9901-replay-pin.md"
	git -C "$dir" add adr/9901-replay-pin.md
	git -C "$dir" -c user.name=replay -c user.email=replay@invalid commit -q -m "replay pin"
	local base
	base=$(git -C "$dir" rev-parse HEAD)
	git -C "$dir" -c user.name=replay -c user.email=replay@invalid cherry-pick --allow-empty --keep-redundant-commits -x "$c" >/dev/null 2>&1 ||
		{ git -C "$dir" cherry-pick --abort >/dev/null 2>&1 || true; echo skip; return; }
	local out
	out=$("$pinbot" evaluate --repo "$dir" --base "$base" --head HEAD -o json 2>/dev/null) || true
	local v
	v=$(jq -r '.verdict // "usage"' <<<"$out" 2>/dev/null || echo usage)
	if [ "$v" = error ] && grep -Eq "cannot prove|which may move the pin" <<<"$out"; then v=unresolved; fi
	echo "$v"
}

printf 'ecosystem\trepository\tcommits\tcorrect_blocks\tmissed\tfalse_blocks\terrors\terrors_unresolved\n'
for g in "$@"; do
	name=$(basename "$(cd "$g" && cd "$(git rev-parse --git-dir)" && pwd)")
	[ "$name" = repo ] || [ "$name" = .git ] && name=$(basename "$(dirname "$(cd "$g" && cd "$(git rev-parse --git-dir)" && pwd)")")
	dir="$work/$name"
	git clone -q --shared --no-checkout "$g" "$dir"
	# Candidate commits: bot authors, one parent, newest first (the newest
	# 25 × MAX of them).
	git -C "$dir" log --no-merges --format='%H' --author='dependabot' --author='renovate' -n $((max * 25)) HEAD >"$work/commits"
	: >"$work/cands"
	: >"$work/named"
	while read -r c; do
		eco=$(git -C "$dir" diff-tree --no-commit-id --name-only -r "$c" | ecosystem_of)
		[ -n "$eco" ] || continue
		git -C "$dir" log -1 --format='%s%n%b' "$c" | moves >"$work/moves"
		[ -s "$work/moves" ] || renovate_move "$dir" "$c" >"$work/moves"
		[ -s "$work/moves" ] || continue
		printf '%s\t%s\t%s\n' "$c" "$eco" "$(head -1 "$work/moves")" >>"$work/cands"
		cut -f1 "$work/moves" | sed "s|^|$c\t|" >>"$work/named"
	done <"$work/commits"
	awk -F'\t' -v max="$max" '{ if (++n[$2] <= max) print }' "$work/cands" >"$work/picked"
	declare -A commits=() correct=() missed=() falseb=() errs=() unres=()
	while IFS=$'\t' read -r c eco pkg from to; do
		# The control: another package a bot commit of this ecosystem moves.
		# A package the commit names or whose name its diff shows (a lock's
		# transitive entries move unnamed) is no control.
		git -C "$dir" diff "$c^" "$c" >"$work/diff"
		ctl=""
		while IFS=$'\t' read -r _ ce cp cf _; do
			[ "$ce" = "$eco" ] || continue
			grep -q "^$c"$'\t'"$cp\$" "$work/named" && continue
			grep -qF -- "$cp" "$work/diff" && continue
			ctl="$cp"$'\t'"$cf"
			break
		done <"$work/cands"
		mv=$(evaluate "$dir" "$c" "$eco" "$pkg" "$from")
		[ "$mv" = skip ] && continue
		cv=none
		if [ -n "$ctl" ]; then
			cv=$(evaluate "$dir" "$c" "$eco" "${ctl%%$'\t'*}" "${ctl#*$'\t'}")
		fi
		commits[$eco]=$((${commits[$eco]:-0} + 1))
		case $mv in
		block) correct[$eco]=$((${correct[$eco]:-0} + 1)) ;;
		unresolved) unres[$eco]=$((${unres[$eco]:-0} + 1)) ;;
		error | usage) errs[$eco]=$((${errs[$eco]:-0} + 1)) ;;
		*) missed[$eco]=$((${missed[$eco]:-0} + 1)) ;;
		esac
		case $cv in
		block) falseb[$eco]=$((${falseb[$eco]:-0} + 1)) ;;
		unresolved) unres[$eco]=$((${unres[$eco]:-0} + 1)) ;;
		error | usage) errs[$eco]=$((${errs[$eco]:-0} + 1)) ;;
		esac
		[ $verbose = 0 ] || printf '%s %s %s %s->%s move=%s control=%s\n' "$name" "${c:0:10}" "$pkg" "$from" "$to" "$mv" "$cv" >&2
	done <"$work/picked"
	for eco in "${!commits[@]}"; do
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$eco" "$name" "${commits[$eco]}" "${correct[$eco]:-0}" "${missed[$eco]:-0}" \
			"${falseb[$eco]:-0}" "${errs[$eco]:-0}" "${unres[$eco]:-0}"
	done
	unset commits correct missed falseb errs unres
	rm -rf "$dir"
done
