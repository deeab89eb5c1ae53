package dashboard

import (
	"fmt"
	"strings"
)

// Advisory is one GitHub security advisory of a pinned version, as the
// dashboard shows it.
type Advisory struct {
	// ID is "CVE-… (GHSA-…)" or the GHSA id; URL links it.
	ID, URL string
	// Severity is low, medium, high, critical or unknown.
	Severity string
	// Vulnerable is the vulnerable range, FirstPatched the first version
	// without it ("" when none is patched yet).
	Vulnerable, FirstPatched string
}

// AdvisoryRow is one enforced pin and what GitHub's advisory database says
// of its version (ADR 0275).
type AdvisoryRow struct {
	Package, Version, Ecosystem string
	// Covered is false for ecosystems the database does not cover
	// (Docker, Helm, Terraform): "not covered", never "none".
	Covered bool
	// Err says why the database could not be read for the pin.
	Err        string
	Advisories []Advisory
}

// Serious reports a critical or high advisory of the pinned version.
func (r AdvisoryRow) Serious() bool {
	for _, a := range r.Advisories {
		if s := strings.ToLower(a.Severity); s == "critical" || s == "high" {
			return true
		}
	}
	return false
}

// Advisories renders the dashboard's "Advisories" section: each pinned
// version's advisories with severity and first patched version, a
// critical or high one marked, "none", "not covered" or what could not be
// read. Empty for no rows. The same rows always give the same text.
func Advisories(rows []AdvisoryRow) string {
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Advisories of the pinned versions\n\n")
	b.WriteString("| Pin | Advisories (GitHub's advisory database) |\n|---|---|\n")
	for _, r := range rows {
		var cell string
		switch {
		case !r.Covered:
			cell = "not covered (no " + esc(r.Ecosystem) + " advisories in GitHub's database)"
		case r.Err != "":
			cell = "could not be read: " + esc(r.Err)
		case len(r.Advisories) == 0:
			cell = "none"
		default:
			var parts []string
			for _, a := range r.Advisories {
				id := esc(a.ID)
				if a.URL != "" {
					id = "[" + id + "](" + a.URL + ")"
				}
				patched := "no patched version yet"
				if a.FirstPatched != "" {
					patched = "first patched `" + esc(a.FirstPatched) + "`"
				}
				parts = append(parts, fmt.Sprintf("%s %s, vulnerable %s, %s", id, esc(a.Severity), esc(a.Vulnerable), patched))
			}
			cell = strings.Join(parts, "<br>")
			if r.Serious() {
				cell = "**:warning: critical or high** " + cell
			}
		}
		fmt.Fprintf(&b, "| `%s` `%s` (%s) | %s |\n", esc(r.Package), esc(r.Version), esc(r.Ecosystem), cell)
	}
	return b.String()
}

// esc keeps a value from breaking the table.
func esc(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ", "\r", "").Replace(s)
}
