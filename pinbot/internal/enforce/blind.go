package enforce

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/pin"
)

// blind returns what keeps pinbot from seeing whether the pull request moves
// an enforced pin, one message each; every one makes the verdict Error. It
// is the single implementation of two rules (issues 15 and 17):
//
//   - A changed file of a format pinbot knows but cannot read (pin.Format
//     with Readable false), in a repository with an enforced pin of that
//     format's ecosystem, may move the pin unseen.
//   - An enforced pin pinbot cannot enforce (pin.Pin.Unenforceable: no
//     ecosystem, or one it does not know) makes every pull request that
//     touches a dependency file of any known format fail, because no change
//     can be compared with it.
//
// Files come from PullRequest.Files and the manifests of Changes.
func blind(in Input) (out, records []string) {
	files, manifests := changedFiles(in)
	for _, f := range files {
		format, ok := pin.FormatOf(f)
		if !ok || format.Readable() {
			continue
		}
		var moved []string
		for _, p := range in.Pins {
			if p.Enforced && p.Ecosystem == format.Ecosystem {
				moved = append(moved, fmt.Sprintf("%s %s (%s)", p.Package, p.Version, adr.Cite(p.Source)))
			}
		}
		if len(moved) > 0 {
			out = append(out, fmt.Sprintf("pinbot cannot read %s (a %s file of %s), which may move the pin of %s",
				f, format.Name, format.Ecosystem, strings.Join(dedupe(moved), ", ")))
		}
	}
	msgs, records, _ := unreadRecords(in, manifests)
	out = append(out, msgs...)
	if len(manifests) == 0 {
		return out, records
	}
	for _, p := range in.Pins {
		why := p.Unenforceable()
		if !p.Enforced || why == "" {
			continue
		}
		out = append(out, fmt.Sprintf("the pin of %s %s in %s %s, so pinbot cannot tell whether the changes to %s move it; give the pin a known ecosystem in the ADR",
			p.Package, p.Version, adr.Cite(p.Source), why, strings.Join(manifests, ", ")))
	}
	return out, records
}

// unreadRecords is the third rule (issue 22, ADR 0260): a decision record
// pinbot could not read (adr.Warning.Unreadable) may hold a pin of any of
// its ecosystems, so a pull request changing a dependency file of one of
// them cannot be shown to keep it; and a pin of a record whose status word
// pinbot does not know (adr.Warning.Doubtful) may be in force, so a pull
// request moving it is neither allowed nor closed. A pull request that
// changes no dependency file (one that fixes the record) is not affected.
// A record the pull request itself leaves unreadable or of an unknown
// status at its head (adr.Warning.Head) fails that pull request, whatever
// else it changes (ADR 0262).
//
// The messages of base records pinbot could not read are returned apart
// (records): they make the verdict Error only when nothing else decides
// it; a known block stays a block and names them (issue 36, item 5, ADR
// 0324).
func unreadRecords(in Input, manifests []string) (out, records []string, why []adr.Warning) {
	for _, w := range in.Warnings {
		n, nr := len(out), len(records)
		switch {
		case w.Head && w.Unreadable:
			out = append(out, fmt.Sprintf("this pull request leaves the decision record %s unreadable (%s); once merged, pinbot could not tell which pins it holds: fix the record in this pull request",
				position(w), w.Message))
		case w.Head && len(w.Doubtful) > 0:
			out = append(out, fmt.Sprintf("this pull request gives the decision record %s a status pinbot does not know: %s; fix the status in this pull request",
				position(w), w.Message))
		}
		if w.Head {
			if len(out) > n {
				why = append(why, w)
			}
			continue
		}
		if w.Unreadable {
			var hit []string
			for _, f := range manifests {
				format, _ := pin.FormatOf(f)
				if len(w.Ecosystems) == 0 || slices.Contains(w.Ecosystems, format.Ecosystem) {
					hit = append(hit, f)
				}
			}
			if len(hit) > 0 {
				records = append(records, fmt.Sprintf("pinbot cannot read the decision record %s (%s), which may pin a dependency changed in %s; fix the record, then run the check again",
					position(w), w.Message, strings.Join(hit, ", ")))
			}
		}
		for _, p := range w.Doubtful {
			for _, c := range in.Changes {
				if p.Matches(c) && p.Moves(c) {
					out = append(out, fmt.Sprintf("%s moves from %s to %s in %s, and %s may pin it: %s", c.Package, p.Version, orDefault(c.New, "nothing (removed)"), c.Manifest, position(w), w.Message))
					break
				}
			}
		}
		if len(out) > n || len(records) > nr {
			why = append(why, w)
		}
	}
	return out, records, why
}

// changedFiles returns the pull request's changed files (PullRequest.Files
// and the manifests of Changes), sorted, and those of a known format.
func changedFiles(in Input) (files, manifests []string) {
	files = slices.Clone(in.PR.Files)
	for _, c := range in.Changes {
		files = append(files, c.Manifest)
	}
	slices.Sort(files)
	files = slices.Compact(files)
	for _, f := range files {
		if _, ok := pin.FormatOf(f); ok {
			manifests = append(manifests, f)
		}
	}
	return files, manifests
}

// RecordsInDoubt returns the warnings of the decision records that make
// the verdict Error on in (the third rule of blind): unreadable records
// that may pin a changed dependency file, and records of an unknown status
// with a pin the pull request moves. The App comments once naming them,
// file and line, so a team learns which record to fix (issue 22, ADR 0262).
func RecordsInDoubt(in Input) []adr.Warning {
	_, manifests := changedFiles(in)
	_, _, why := unreadRecords(in, manifests)
	return why
}

// position is "file:line:column", "file:line" or "file".
func position(w adr.Warning) string {
	switch {
	case w.Line > 0 && w.Column > 0:
		return fmt.Sprintf("%s:%d:%d", w.Path, w.Line, w.Column)
	case w.Line > 0:
		return fmt.Sprintf("%s:%d", w.Path, w.Line)
	}
	return w.Path
}
