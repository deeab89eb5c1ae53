package enforce

import (
	"regexp"
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Advisory is one GitHub security advisory of a pinned package, as the
// global advisory database reports it (GET /advisories?affects=pkg@version).
type Advisory struct {
	// GHSA and CVE are the advisory's ids (CVE may be empty).
	GHSA string `json:"ghsa_id"`
	CVE  string `json:"cve_id,omitempty"`
	// Severity is low, medium, high, critical or unknown.
	Severity string `json:"severity"`
	Summary  string `json:"summary,omitempty"`
	URL      string `json:"url,omitempty"`
	// Ecosystem and Package name the vulnerable package; Vulnerable is its
	// vulnerable version range ("< 1.42.1"), FirstPatched the first
	// version without it ("" when none is patched yet).
	Ecosystem    pin.Ecosystem `json:"ecosystem"`
	Package      string        `json:"package"`
	Vulnerable   string        `json:"vulnerable_version_range,omitempty"`
	FirstPatched string        `json:"first_patched_version,omitempty"`
}

// ID is the advisory's id to show: the CVE when it has one, else the GHSA.
func (a Advisory) ID() string {
	if a.CVE != "" {
		return a.CVE + " (" + a.GHSA + ")"
	}
	return a.GHSA
}

// Serious reports a critical or high advisory: the pin is marked in
// `pinbot pins` and on the dashboard.
func (a Advisory) Serious() bool {
	return strings.EqualFold(a.Severity, "critical") || strings.EqualFold(a.Severity, "high")
}

var (
	securityTitleRE = regexp.MustCompile(`(?i)\[security\]`)
	vulnAlertsRE    = regexp.MustCompile(`(?im)^#+\s*(?:GitHub\s+)?Vulnerability Alerts\b`)
	advisoryIDRE    = regexp.MustCompile(`\b(GHSA(?:-[23456789cfghjmpqrvwx]{4}){3}|CVE-\d{4}-\d{4,})\b`)
)

// SecuritySignals lists what in a pull request says it is a security
// update: Renovate's "[security]" title suffix, its "-vulnerability"
// branch, its "Vulnerability Alerts" body section, and the advisory ids
// (GHSA-…, CVE-…) its body cites. Dependabot's "security" label is not one:
// repositories label pull requests as they like.
func SecuritySignals(pr PullRequest) (signals, ids []string) {
	if securityTitleRE.MatchString(pr.Title) {
		signals = append(signals, "the title's [security] suffix")
	}
	if strings.HasSuffix(pr.HeadRef, "-vulnerability") {
		signals = append(signals, "the branch "+pr.HeadRef)
	}
	if vulnAlertsRE.MatchString(pr.Body) {
		signals = append(signals, "the body's Vulnerability Alerts section")
	}
	for _, m := range advisoryIDRE.FindAllString(pr.Body, -1) {
		if !slices.Contains(ids, m) {
			ids = append(ids, m)
		}
	}
	if len(ids) > 0 {
		signals = append(signals, "the advisory "+strings.Join(ids, ", ")+" cited in the body")
	}
	return signals, ids
}

// securityShape decides whether a pull request moving pins is a security
// update, and sets r.Advisories and r.Security: a bot signal, or an
// advisory of the pinned version that the head's version is patched
// against (at or above its first patched version).
func securityShape(in Input, r *Result) bool {
	signals, ids := SecuritySignals(in.PR)
	for _, p := range r.Pins {
		if p.Verdict == NotApplicable {
			continue
		}
		for _, a := range in.Advisories {
			if !strings.EqualFold(pin.NormalizeName(p.Pin.Ecosystem, a.Package), pin.NormalizeName(p.Pin.Ecosystem, p.Pin.Package)) {
				continue
			}
			if a.Ecosystem != "" && p.Pin.Ecosystem != "" && a.Ecosystem != p.Pin.Ecosystem {
				continue
			}
			cited := slices.Contains(ids, a.GHSA) || (a.CVE != "" && slices.Contains(ids, a.CVE))
			// The head's version against the first patched one, in the
			// ecosystem's own order (ADR 0296). A version that order cannot
			// read leaves the question open, and an open question never
			// closes: it may be a security update.
			head := strings.TrimLeft(strings.TrimSpace(p.Change.New), "=")
			fixed, unordered := false, ""
			if a.FirstPatched != "" && head != "" {
				c, err := pin.CompareVersions(p.Pin.Ecosystem, head, a.FirstPatched)
				fixed, unordered = err == nil && c >= 0, errText(err)
			}
			if !cited && !fixed && unordered == "" {
				continue
			}
			if !slices.ContainsFunc(r.Advisories, func(b Advisory) bool { return b.GHSA == a.GHSA }) {
				r.Advisories = append(r.Advisories, a)
			}
			switch {
			case fixed:
				signals = append(signals, "the advisory "+a.ID()+": the pinned "+p.Pin.Version+" is affected and "+head+" is at or above the first patched "+a.FirstPatched)
			case unordered != "":
				signals = append(signals, "the advisory "+a.ID()+": the pinned "+p.Pin.Version+" is affected and pinbot could not order "+head+" against the first patched "+a.FirstPatched+" ("+unordered+"), so it may be a security update")
			}
		}
	}
	for _, id := range ids {
		if !slices.ContainsFunc(r.Advisories, func(a Advisory) bool { return a.GHSA == id || a.CVE == id }) {
			r.Advisories = append(r.Advisories, Advisory{GHSA: id, Severity: "unknown"})
		}
	}
	r.Security = dedupe(signals)
	return len(r.Security) > 0
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// unreadAdvisories says why a pull request that would be closed is not:
// the advisories of a pinned package it moves could not be read, and it
// may be a security update. Nothing closes on incomplete information.
func unreadAdvisories(in Input, r Result) string {
	for _, e := range in.AdvisoryErrors {
		for _, p := range r.Pins {
			if p.Verdict == NotApplicable || !pin.SameNamespace(p.Pin.Ecosystem, e.Ecosystem) ||
				!strings.EqualFold(pin.NormalizeName(p.Pin.Ecosystem, p.Pin.Package), pin.NormalizeName(p.Pin.Ecosystem, e.Package)) {
				continue
			}
			return "pinbot could not read GitHub's advisories of " + p.Pin.Package + ", so it does not close this pull request: it may be a security update (" + e.Err + ")."
		}
	}
	return ""
}
