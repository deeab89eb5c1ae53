package githubtest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Advisory is a reviewed advisory of GitHub's global advisory database, as
// a test seeds it; GET /advisories serves it in GitHub's JSON.
type Advisory struct {
	GHSA, CVE, Summary string
	// Severity is low, medium, high, critical or unknown.
	Severity string
	// Type is reviewed (the default), unreviewed or malware.
	Type      string
	Published time.Time
	// Vulnerabilities are the affected packages.
	Vulnerabilities []Vulnerability
}

// Vulnerability is one affected package of an advisory.
type Vulnerability struct {
	// Ecosystem is GitHub's name: actions, composer, erlang, go, maven,
	// npm, nuget, other, pip, pub, rubygems, rust, swift.
	Ecosystem, Name string
	// Range is the vulnerable version range ("< 1.42.1", ">= 1.0, < 1.2.3").
	Range string
	// FirstPatched is the first version without the vulnerability ("" none).
	FirstPatched string
}

// advisoryDBs holds each simulator's advisories (the global database is
// GitHub's, not a repository's).
var advisoryDBs sync.Map // *Server -> *advisoryDB

type advisoryDB struct {
	mu   sync.Mutex
	list []Advisory
}

func (s *Server) advisories() *advisoryDB {
	db, _ := advisoryDBs.LoadOrStore(s, &advisoryDB{})
	return db.(*advisoryDB)
}

func init() {
	permissionTable["GET /advisories"] = need{doc: "https://docs.github.com/rest/security-advisories/global-advisories#list-global-security-advisories"} // public: no token, no permission
}

// AddAdvisory seeds the global advisory database.
func (s *Server) AddAdvisory(a Advisory) {
	if a.Type == "" {
		a.Type = "reviewed"
	}
	if a.Published.IsZero() {
		a.Published = epoch
	}
	db := s.advisories()
	db.mu.Lock()
	defer db.mu.Unlock()
	db.list = append(db.list, a)
}

// listAdvisories serves GET /advisories as GitHub documents it: reviewed
// advisories by default (type), filtered by ecosystem, severity (comma
// separated), ghsa_id, cve_id and affects ("pkg", "pkg@version", comma
// separated or repeated as affects[]), newest published first, paginated
// by cursor (per_page up to 100, Link rel="next" with after=).
func (s *Server) listAdvisories(c *call) {
	q := c.r.URL.Query()
	typ := q.Get("type")
	if typ == "" {
		typ = "reviewed"
	}
	if !slices.Contains([]string{"reviewed", "unreviewed", "malware"}, typ) {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed: type must be one of reviewed, malware, unreviewed")
		return
	}
	var affects []string
	for _, v := range append(q["affects"], q["affects[]"]...) {
		for _, a := range strings.Split(v, ",") {
			if a = strings.TrimSpace(a); a != "" {
				affects = append(affects, a)
			}
		}
	}
	if len(affects) > 1000 {
		c.fail(http.StatusUnprocessableEntity, "Validation Failed: affects lists more than 1000 packages")
		return
	}
	severities := splitComma(q.Get("severity"))
	eco := q.Get("ecosystem")
	db := s.advisories()
	db.mu.Lock()
	list := slices.Clone(db.list)
	db.mu.Unlock()
	slices.SortStableFunc(list, func(a, b Advisory) int { return b.Published.Compare(a.Published) })
	var out []Advisory
	for _, a := range list {
		if a.Type != typ || (q.Get("ghsa_id") != "" && a.GHSA != q.Get("ghsa_id")) || (q.Get("cve_id") != "" && a.CVE != q.Get("cve_id")) {
			continue
		}
		if len(severities) > 0 && !slices.Contains(severities, a.Severity) {
			continue
		}
		if eco != "" && !slices.ContainsFunc(a.Vulnerabilities, func(v Vulnerability) bool { return v.Ecosystem == eco }) {
			continue
		}
		if len(affects) > 0 && !slices.ContainsFunc(affects, func(spec string) bool { return advisoryAffects(a, eco, spec) }) {
			continue
		}
		out = append(out, a)
	}
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 30
	}
	per = min(per, 100)
	start := 0
	if after := q.Get("after"); after != "" {
		b, err := base64.RawURLEncoding.DecodeString(after)
		n, err2 := strconv.Atoi(strings.TrimPrefix(string(b), "cursor:"))
		if err != nil || err2 != nil || n < 0 || n > len(out) {
			c.fail(http.StatusBadRequest, "Invalid cursor")
			return
		}
		start = n
	}
	end := min(start+per, len(out))
	if end < len(out) {
		u := *c.r.URL
		qq := u.Query()
		qq.Set("after", base64.RawURLEncoding.EncodeToString([]byte("cursor:"+strconv.Itoa(end))))
		qq.Set("per_page", strconv.Itoa(per))
		u.RawQuery = qq.Encode()
		c.w.Header().Set("Link", fmt.Sprintf(`<%s%s?%s>; rel="next"`, strings.TrimSuffix(c.base, "/"), u.Path, u.RawQuery))
	}
	items := []obj{}
	for _, a := range out[start:end] {
		items = append(items, advisoryJSON(c.base, a))
	}
	c.json(http.StatusOK, items)
}

// advisoryJSON is an advisory with every field GitHub's global advisory
// object documents.
func advisoryJSON(base string, a Advisory) obj {
	ids := []obj{{"type": "GHSA", "value": a.GHSA}}
	var cve any
	if a.CVE != "" {
		ids = append(ids, obj{"type": "CVE", "value": a.CVE})
		cve = a.CVE
	}
	var vulns []obj
	for _, v := range a.Vulnerabilities {
		var patched any
		if v.FirstPatched != "" {
			patched = v.FirstPatched
		}
		vulns = append(vulns, obj{"package": obj{"ecosystem": v.Ecosystem, "name": v.Name}, "vulnerable_version_range": v.Range,
			"first_patched_version": patched, "vulnerable_functions": []string{}})
	}
	return obj{
		"ghsa_id": a.GHSA, "cve_id": cve, "url": base + "advisories/" + a.GHSA, "html_url": htmlURL("advisories/" + a.GHSA),
		"repository_advisory_url": nil, "summary": a.Summary, "description": a.Summary, "type": a.Type, "severity": a.Severity,
		"source_code_location": "", "identifiers": ids, "references": []string{"https://nvd.nist.gov/vuln/detail/" + a.CVE},
		"published_at": ts(a.Published), "updated_at": ts(a.Published), "github_reviewed_at": ts(a.Published), "nvd_published_at": nil,
		"withdrawn_at": nil, "vulnerabilities": vulns, "cvss": obj{"vector_string": nil, "score": nil}, "cwes": []obj{}, "credits": []obj{},
	}
}

// advisoryAffects reports whether spec ("pkg" or "pkg@version") names a
// package of the advisory (in ecosystem eco when given) and, with a
// version, one inside its vulnerable range.
func advisoryAffects(a Advisory, eco, spec string) bool {
	name, ver, hasVer := strings.Cut(spec, "@")
	if strings.HasPrefix(spec, "@") { // an npm scope: "@scope/pkg@1.0.0"
		i := strings.LastIndex(spec, "@")
		name, ver, hasVer = spec[:i], spec[i+1:], i > 0
		if i == 0 {
			name, ver, hasVer = spec, "", false
		}
	}
	for _, v := range a.Vulnerabilities {
		if (eco != "" && v.Ecosystem != eco) || !strings.EqualFold(v.Name, name) {
			continue
		}
		if !hasVer || inRange(ver, v.Range) {
			return true
		}
	}
	return false
}

// inRange evaluates a vulnerable version range of GitHub's syntax: comma
// separated conditions, each an operator (<, <=, >, >=, =) and a version.
func inRange(ver, rng string) bool {
	for _, cond := range strings.Split(rng, ",") {
		cond = strings.TrimSpace(cond)
		op := strings.TrimRight(cond[:min(2, len(cond))], "0123456789v ")
		want := strings.TrimSpace(strings.TrimPrefix(cond, op))
		c := cmpVersion(ver, want)
		ok := map[string]bool{"<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0, "=": c == 0, "": c == 0}[op]
		if !ok {
			return false
		}
	}
	return true
}

// cmpVersion compares dotted release versions numerically.
func cmpVersion(a, b string) int {
	pa := strings.Split(strings.TrimPrefix(a, "v"), ".")
	pb := strings.Split(strings.TrimPrefix(b, "v"), ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		x, y := 0, 0
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func splitComma(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
