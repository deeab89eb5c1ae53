package source

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/dashboard"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
)

// AdvisoryTTL is how long a reading of the advisory database is reused.
const AdvisoryTTL = time.Hour

// maxAffects bounds the packages of one request: GitHub takes up to 1000,
// but the URL must stay within a client's and a proxy's limits.
const maxAffects = 50

// AdvisoryEcosystem is GitHub's advisory database name for an ecosystem,
// and false for those it does not cover; the names live in the
// ecosystems' registry rows (pin.AdvisoryEcosystem, ADR 0341).
func AdvisoryEcosystem(e pin.Ecosystem) (string, bool) { return pin.AdvisoryEcosystem(e) }

// PinAdvisories is what the advisory database says of one pinned version.
type PinAdvisories struct {
	Pin pin.Pin `json:"pin"`
	// Covered is false for an ecosystem GitHub's database does not cover.
	Covered bool `json:"covered"`
	// Advisories affect the pinned version (none: it has no known one).
	Advisories []enforce.Advisory `json:"advisories"`
	// Err says why the database could not be read for this pin.
	Err string `json:"error,omitempty"`
}

// Serious reports a critical or high advisory of the pinned version.
func (p PinAdvisories) Serious() bool {
	return slices.ContainsFunc(p.Advisories, enforce.Advisory.Serious)
}

// Row is the pin's row of the dashboard's advisories section.
func (p PinAdvisories) Row() dashboard.AdvisoryRow {
	r := dashboard.AdvisoryRow{Package: p.Pin.Package, Version: p.Pin.Version, Ecosystem: string(p.Pin.Ecosystem), Covered: p.Covered, Err: p.Err}
	for _, a := range p.Advisories {
		r.Advisories = append(r.Advisories, dashboard.Advisory{ID: a.ID(), URL: a.URL, Severity: a.Severity, Vulnerable: a.Vulnerable, FirstPatched: a.FirstPatched})
	}
	return r
}

// Advisories reads GitHub's global security advisories (GET /advisories,
// public: no App permission) for pinned versions: one request per
// ecosystem and up to maxAffects packages ("affects=kopf@1.40.1,…"),
// every page, each answer reused for AdvisoryTTL. On GitHub Enterprise
// Server GH is the upstream (github.com) client.
type Advisories struct {
	GH *github.Client
	// Now is the cache's clock (time.Now when nil).
	Now func() time.Time

	mu    sync.Mutex
	cache map[string]advisoryEntry
}

type advisoryEntry struct {
	at   time.Time
	list []*github.GlobalSecurityAdvisory
}

// For returns the advisories of each enforced pin, in the pins' order. A
// request that fails marks its pins with the error and nothing else: a pin
// is never shown as having no advisory when it was not read.
func (a *Advisories) For(ctx context.Context, pins []pin.Pin) []PinAdvisories {
	return a.ForWith(ctx, a.GH, pins)
}

// ForWith is For through client gh (an installation's), sharing a's cache:
// the database is the same for every installation.
func (a *Advisories) ForWith(ctx context.Context, gh *github.Client, pins []pin.Pin) []PinAdvisories {
	out := make([]PinAdvisories, 0, len(pins))
	byEco := map[string][]int{}
	var ecos []string
	for _, p := range pins {
		if !p.Enforced {
			continue
		}
		eco, ok := AdvisoryEcosystem(p.Ecosystem)
		out = append(out, PinAdvisories{Pin: p, Covered: ok, Advisories: []enforce.Advisory{}})
		if !ok {
			continue
		}
		if _, seen := byEco[eco]; !seen {
			ecos = append(ecos, eco)
		}
		byEco[eco] = append(byEco[eco], len(out)-1)
	}
	for _, eco := range ecos {
		idx := byEco[eco]
		for start := 0; start < len(idx); start += maxAffects {
			chunk := idx[start:min(start+maxAffects, len(idx))]
			var specs []string
			for _, i := range chunk {
				specs = append(specs, affectsSpec(out[i].Pin))
			}
			list, err := a.list(ctx, gh, eco, strings.Join(specs, ","))
			for _, i := range chunk {
				if err != nil {
					out[i].Err = err.Error()
					continue
				}
				out[i].Advisories = matching(out[i].Pin, eco, list)
			}
		}
	}
	return out
}

// ForSource is ForWith through the client src reads GitHub's advisory
// database with: the upstream one on GitHub Enterprise Server (ADR 0275).
func (a *Advisories) ForSource(ctx context.Context, src *GitHub, pins []pin.Pin) []PinAdvisories {
	gh := src.GH
	if src.UpstreamGH != nil {
		gh = src.UpstreamGH
	}
	return a.ForWith(ctx, gh, pins)
}

// affectsSpec is "package@version" with the version bare ("==1.40.1" and
// "v1.2.3" name 1.40.1 and 1.2.3 in GitHub's ranges, except Go's, whose
// versions keep their v).
func affectsSpec(p pin.Pin) string {
	v := pin.AdvisoryVersion(p.Ecosystem, p.Version)
	if i := strings.Index(v, "@"); i >= 0 { // an action's "v4.2.2@<sha>"
		v = v[:i]
	}
	return p.Package + "@" + v
}

// matching turns the advisories of a response into those of one pin: the
// vulnerability entries naming its package in eco.
func matching(p pin.Pin, eco string, list []*github.GlobalSecurityAdvisory) []enforce.Advisory {
	out := []enforce.Advisory{}
	for _, g := range list {
		for _, v := range g.Vulnerabilities {
			if v.GetPackage().GetEcosystem() != eco || !strings.EqualFold(pin.NormalizeName(p.Ecosystem, v.GetPackage().GetName()), pin.NormalizeName(p.Ecosystem, p.Package)) {
				continue
			}
			out = append(out, enforce.Advisory{GHSA: g.GetGHSAID(), CVE: g.GetCVEID(), Severity: g.GetSeverity(), Summary: g.GetSummary(), URL: g.GetHTMLURL(),
				Ecosystem: p.Ecosystem, Package: v.GetPackage().GetName(), Vulnerable: v.GetVulnerableVersionRange(), FirstPatched: v.GetFirstPatchedVersion()})
			break
		}
	}
	return out
}

// list reads every page of reviewed advisories of eco affecting specs,
// or its cached reading younger than AdvisoryTTL.
func (a *Advisories) list(ctx context.Context, gh *github.Client, eco, specs string) ([]*github.GlobalSecurityAdvisory, error) {
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	key := eco + "\x00" + specs
	a.mu.Lock()
	e, ok := a.cache[key]
	a.mu.Unlock()
	if ok && now().Sub(e.at) < AdvisoryTTL {
		return e.list, nil
	}
	opt := &github.ListGlobalSecurityAdvisoriesOptions{Ecosystem: github.String(eco), Affects: github.String(specs), Type: github.String("reviewed")}
	opt.PerPage = 100
	var all []*github.GlobalSecurityAdvisory
	for range 100 {
		page, resp, err := gh.SecurityAdvisories.ListGlobalSecurityAdvisories(ctx, opt)
		if err != nil {
			return nil, fmt.Errorf("reading GitHub's %s advisories of %s: %w", eco, specs, err)
		}
		all = append(all, page...)
		if resp.After == "" {
			break
		}
		opt.After = resp.After
	}
	a.mu.Lock()
	if a.cache == nil {
		a.cache = map[string]advisoryEntry{}
	}
	a.cache[key] = advisoryEntry{at: now(), list: all}
	a.mu.Unlock()
	return all, nil
}

// AdvisoryReader is a Source that reads GitHub's advisory database: the
// App's when advisories are on, pinbot evaluate's when --advisories names
// a file. Gather feeds what it reads to enforce, which decides whether a
// pull request is a security update (ADR 0274, ADR 0322): the App and the
// CLI then reach the same verdict from the same advisories.
type AdvisoryReader interface {
	// PinAdvisories returns the advisories of the enforced pins, or nil
	// when the source reads none.
	PinAdvisories(ctx context.Context, pins []pin.Pin) []PinAdvisories
}

// PinAdvisories implements AdvisoryReader: every enforced pin is read, the
// same request and the same hour's cache entry as the dashboard's section.
func (g *GitHub) PinAdvisories(ctx context.Context, pins []pin.Pin) []PinAdvisories {
	if g.AdvisoryDB == nil {
		return nil
	}
	return g.AdvisoryDB.ForSource(ctx, g, pins)
}

// PinAdvisories implements AdvisoryReader from the advisories given on
// the command line (what `gh api /advisories?affects=…` prints).
func (g *Git) PinAdvisories(_ context.Context, pins []pin.Pin) []PinAdvisories {
	if g.Advisories == nil {
		return nil
	}
	var out []PinAdvisories
	for _, p := range pins {
		if !p.Enforced {
			continue
		}
		eco, ok := AdvisoryEcosystem(p.Ecosystem)
		pa := PinAdvisories{Pin: p, Covered: ok, Advisories: []enforce.Advisory{}}
		if ok {
			pa.Advisories = matching(p, eco, g.Advisories)
		}
		out = append(out, pa)
	}
	return out
}

// AdvisoryList is what GET /advisories returns, as go-github decodes it
// (kept behind the seam: callers outside source need not import it).
type AdvisoryList []*github.GlobalSecurityAdvisory

// DecodeAdvisories decodes what GET /advisories returns, for pinbot
// evaluate's --advisories.
func DecodeAdvisories(r io.Reader) (AdvisoryList, error) {
	var list AdvisoryList
	if err := json.NewDecoder(r).Decode(&list); err != nil {
		return nil, fmt.Errorf("decoding advisories: %w", err)
	}
	if list == nil {
		list = AdvisoryList{}
	}
	return list, nil
}
