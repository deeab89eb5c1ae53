package enforce

import (
	"regexp"
	"slices"
	"strconv"
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
			fixed := a.FirstPatched != "" && p.Change.New != "" && CompareVersions(p.Change.New, a.FirstPatched) >= 0
			if !cited && !fixed {
				continue
			}
			if !slices.ContainsFunc(r.Advisories, func(b Advisory) bool { return b.GHSA == a.GHSA }) {
				r.Advisories = append(r.Advisories, a)
			}
			if fixed {
				signals = append(signals, "the advisory "+a.ID()+": the pinned "+p.Pin.Version+" is affected and "+strings.TrimLeft(p.Change.New, "=")+" is at or above the first patched "+a.FirstPatched)
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

// CompareVersions orders two versions as dotted numbers ("1.40.1" <
// "1.42.0" < "1.42.0.1"), ignoring a leading "v" or "==": the order
// GitHub's advisory ranges use for every ecosystem's release versions.
// Parts that are not numbers compare as text, and a pre-release part
// ("1.42.0rc1", "1.42.0-beta") sorts before the release.
func CompareVersions(a, b string) int {
	pa, pb := versionParts(a), versionParts(b)
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y string
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		if c := comparePart(x, y); c != 0 {
			return c
		}
	}
	return 0
}

func versionParts(v string) []string {
	v = strings.TrimLeft(strings.TrimSpace(v), "=v~^ ")
	var parts []string
	cur := ""
	digit := false
	flush := func() {
		if cur != "" {
			parts = append(parts, cur)
		}
		cur = ""
	}
	for _, c := range v {
		isDigit := c >= '0' && c <= '9'
		switch {
		case c == '.' || c == '-' || c == '+' || c == '_':
			flush()
		case cur != "" && isDigit != digit:
			flush()
			cur = string(c)
		default:
			cur += string(c)
		}
		digit = isDigit
	}
	flush()
	return parts
}

// comparePart compares two parts: numbers as numbers; a missing part is
// 0 against a number and after text (a release after its pre-release).
func comparePart(x, y string) int {
	nx, ex := strconv.Atoi(x)
	ny, ey := strconv.Atoi(y)
	switch {
	case x == y:
		return 0
	case ex == nil && ey == nil:
		return compareInt(nx, ny)
	case x == "" && ey == nil:
		return compareInt(0, ny)
	case y == "" && ex == nil:
		return compareInt(nx, 0)
	case x == "":
		return 1 // "1.0" after "1.0rc1"
	case y == "":
		return -1
	case ex == nil:
		return 1 // a number after text
	case ey == nil:
		return -1
	}
	return strings.Compare(x, y)
}

func compareInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
