package render

import (
	"fmt"
	"strings"

	"github.com/kubetenant/kubetenant/internal/adr"
)

// NoRecords renders the check run of a repository without decision
// records: pinbot enforces nothing there, and says where it looked, so a
// team whose records live elsewhere learns why (issue 22, ADR 0262). Its
// conclusion is neutral, never success.
func NoRecords(looked []string) (title, summary string) {
	where := strings.Join(looked, "; ")
	if where == "" {
		where = "the configured folders"
	}
	title = "No decision records: nothing is enforced"
	summary = fmt.Sprintf("no decision records found in %s: nothing is enforced.\n\n"+
		"Write the records in one of these folders, or name their folders with `adrPaths` in .github/pinbot.yml "+
		"(see docs/records.md in pinbot's repository for the forms it reads).", where)
	return title, summary
}

// RecordsComment renders the one comment on a pull request whose verdict is
// error because of decision records pinbot cannot read or whose status word
// it does not know: each record's file and line and what is wrong, and
// that the pull request stays open (issue 22, ADR 0262).
func RecordsComment(ws []adr.Warning) string {
	var b strings.Builder
	b.WriteString(Marker + "\n")
	b.WriteString("**pinbot cannot decide on this pull request: " + plural(len(ws), "a decision record is", "decision records are") + " in doubt.**\n\n")
	for _, w := range ws {
		pos := w.Path
		if w.Line > 0 {
			pos = fmt.Sprintf("%s:%d", w.Path, w.Line)
			if w.Column > 0 {
				pos += fmt.Sprintf(":%d", w.Column)
			}
		}
		fmt.Fprintf(&b, "- `%s`: %s\n", cell(pos), text(w.Message))
	}
	b.WriteString("\nSuch a record may pin a dependency this pull request changes, so pinbot fails its check; " +
		"it does not close the pull request, since what the record decides is unknown. " +
		"Fix the record (a pull request that changes only the record is not affected), then run the check again.\n")
	return b.String()
}
