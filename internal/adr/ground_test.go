package adr

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// manifests are the repositories the grounding cases are read against, as
// files: Declared reads them with the registered readers.
var manifests = map[string]fstest.MapFS{
	"none": {},
	"npm":  {"package.json": {Data: []byte(`{"dependencies": {"next": "15.1.12", "react": "^19.0.0"}}`)}},
	"nuget": {"src/Shop/Shop.csproj": {Data: []byte(`<Project Sdk="Microsoft.NET.Sdk"><ItemGroup>
<PackageReference Include="MassTransit" Version="8.3.6" />
<PackageReference Include="Npgsql" Version="8.5.10" />
<PackageReference Include="Npgsql.EntityFrameworkCore.PostgreSQL" Version="8.5.10" />
</ItemGroup></Project>`)}},
	"pip":       {"requirements.txt": {Data: []byte("kopf==1.40.1\npydantic==2.7.4\n")}},
	"gomod":     {"go.mod": {Data: []byte("module example.com/x\n\ngo 1.27.1\n\nrequire (\n\tgithub.com/ethereum/go-ethereum v1.17.6\n\tgithub.com/jackc/pgx/v5 v5.11.0\n\tgoogle.golang.org/grpc v1.62.1\n\thelm.sh/helm/v4 v4.2.3\n)\n")}},
	"composer":  {"composer.json": {Data: []byte(`{"require": {"guzzlehttp/guzzle": "7.8.1"}}`)}},
	"terraform": {"infra/versions.tf": {Data: []byte("terraform {\n  required_providers {\n    acme = {\n      source  = \"vancluever/acme\"\n      version = \"= 0.9.8\"\n    }\n  }\n}\n")}},
}

// groundCases are the phrasings of issue 35's "bullets and labels" and
// "false pins" classes, each in a record of our own in a shape real teams
// write, read against a repository's manifests. Each fails on 38dce0e.
var groundCases = []struct {
	name, repo, doc string
	want            []string
}{
	{"bullet under Fixed versions", "npm", "# 4. Frontend\n\n## Status\n\nAccepted\n\n## Decision\n\nWe stay on the App Router.\n\n### Fixed versions\n\n- `next`: `15.1.12`\n",
		[]string{"npm next 15.1.12"}},
	{"label with bold name and version", "nuget", "# Messaging\n\n* Status: accepted\n\n## Decision Outcome\n\nChosen: **MassTransit 8.3.6**, because it is what the team knows.\n",
		[]string{"nuget masstransit 8.3.6"}},
	{"two packages, one version, bold", "nuget", "# 7. Postgres driver\n\n## Status\n\nAccepted\n\n## Decision\n\nPin `Npgsql` and `Npgsql.EntityFrameworkCore.PostgreSQL` to **8.5.10**.\n",
		[]string{"nuget npgsql 8.5.10", "nuget npgsql.entityframeworkcore.postgresql 8.5.10"}},
	{"passive: is pinned to, no manifest", "none", "# 9. Operator\n\nStatus: Accepted\n\n## Decision\n\nkopf is pinned to 1.40.1 in requirements.txt until the leak is fixed.\n",
		[]string{"pip kopf 1.40.1"}},
	{"progressive: we are pinning", "pip", "# 9. Operator\n\nStatus: Accepted\n\n## Decision\n\nWe are pinning kopf at 1.40.1.\n",
		[]string{"pip kopf 1.40.1"}},
	{"a list of names and versions", "gomod", "# 12. Node\n\n## Status\n\nAccepted\n\n## Decision\n\nBuild with Go 1.27.1, go-ethereum 1.17.6 and pgx 5.11.0.\n",
		[]string{"gomod github.com/ethereum/go-ethereum v1.17.6", "gomod github.com/jackc/pgx/v5 v5.11.0"}},
	{"go.mod requires", "gomod", "# 13. Helm SDK\n\n## Status\n\nAccepted\n\n## Decision\n\n`go.mod` requires `helm.sh/helm/v4 v4.2.3`.\n",
		[]string{"gomod helm.sh/helm/v4 v4.2.3"}},
	{"version alone, provider in the title", "terraform", "# 21. Hold the acme provider\n\n## Status\n\nAccepted\n\n## Decision\n\nPin exactly: `version = \"0.9.8\"`.\n",
		[]string{"terraform vancluever/acme 0.9.8"}},
	{"table cell with ==", "pip", "# 3. Operator\n\n## Status\n\nAccepted\n\n## Decision\n\n| Package | Version |\n|---|---|\n| kopf | ==1.40.1 |\n",
		[]string{"pip kopf 1.40.1"}},
	{"a pin nothing names the ecosystem of", "none", "# 5. Parser\n\n## Status\n\nAccepted\n\n## Decision\n\nWe hold tree-sitter at 0.22.6.\n",
		func() []string {
			var out []string
			for _, e := range pin.Ecosystems {
				out = append(out, string(e)+" "+pin.NormalizeName(e, "tree-sitter")+" 0.22.6")
			}
			return out
		}()},
	// False pins: each ends in no pin.
	{"partial version", "pip", "# 6. Models\n\n## Status\n\nAccepted\n\n## Decision\n\nWe pin pydantic to 2.7 and use pgx 5.5.\n", nil},
	{"a name that is not the package's", "gomod", "# 8. RPC\n\n## Status\n\nAccepted\n\n## Decision\n\nThe services speak gRPC (go.mod).\n\n| Library | Version |\n|---|---|\n| grpc-go | 1.62.1 |\n", nil},
	{"wrong ecosystem: the manifests say composer", "composer", "# 10. HTTP client\n\n## Status\n\nAccepted\n\n## Decision\n\nThe frontend's package.json is unaffected.\n\n| Package | Version |\n|---|---|\n| guzzle/guzzle | 7.8.1 |\n",
		[]string{"composer guzzlehttp/guzzle 7.8.1"}},
	{"an illustrative example", "pip", "# 11. How we pin\n\n## Status\n\nAccepted\n\n## Decision\n\nPins are written in the decision.\n\nFor example, hold requests at 2.31.0.\n\n### Example\n\nhold httpx at 0.27.0\n", nil},
	{"a version the sentence does not pin and no manifest declares", "npm", "# 2. Runtime\n\n## Status\n\nAccepted\n\n## Decision\n\nWe run Node 20.11.1 in CI.\n", nil},
}

func groundOne(t *testing.T, repo, doc string) (Record, []Warning) {
	t.Helper()
	rec, ws := Parse("docs/adr/0001-x.md", []byte(doc))
	recs, ws := Ground([]Record{rec}, ws, Declared(manifests[repo]))
	return recs[0], ws
}

func TestGround(t *testing.T) {
	for _, tt := range groundCases {
		t.Run(tt.name, func(t *testing.T) {
			rec, ws := groundOne(t, tt.repo, tt.doc)
			if diff := cmp.Diff(tt.want, pinsOf(rec)); diff != "" {
				t.Errorf("pins (-want +got):\n%s\nrejected: %+v\nwarnings: %v", diff, rec.Rejected, ws)
			}
			for _, w := range ws {
				if w.Unreadable {
					t.Errorf("unexpected unread-pin warning: %s", w)
				}
			}
		})
	}
}

// TestGroundExplains: every candidate Ground settles is listed, taken or
// not, with why.
func TestGroundExplains(t *testing.T) {
	rec, _ := groundOne(t, "gomod", "# 12. Node\n\n## Decision\n\nBuild with Go 1.27.1 and pgx 5.11.0; pgx 5.5 had the bug.\n")
	var got []string
	for _, c := range rec.Taken {
		got = append(got, "taken "+c.Package+" "+c.Version+": "+strings.SplitN(c.Why, ":", 2)[0])
	}
	for _, c := range rec.Rejected {
		got = append(got, "rejected "+c.Package+" "+c.Version+": "+strings.SplitN(c.Why, ":", 2)[0])
	}
	want := []string{
		"taken github.com/jackc/pgx/v5 v5.11.0: confirmed",
		"rejected Go 1.27.1: a language, runtime or toolchain (or a minimum supported version), not a package",
		"rejected pgx 5.5: a partial version",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestUnreadPin: a decision naming a package at the version a manifest
// pins exactly, in a phrasing no reader takes, fails closed like an
// unreadable record, naming file:line (issue 35, item 3).
func TestUnreadPin(t *testing.T) {
	// "The kopf that requirements.txt holds (1.40.1) stays" was this
	// test's phrasing until ADR 0409 read it: "holds" pins, and the
	// paragraph names the package of the version alone.
	doc := "# 9. Operator\n\n## Status\n\nAccepted\n\n## Decision\n\nThe kopf that requirements.txt has (1.40.1) stays.\n"
	rec, ws := groundOne(t, "pip", doc)
	var un []string
	for _, w := range ws {
		if w.Unreadable {
			un = append(un, w.Path+":"+strconv.Itoa(w.Line)+" "+strings.Join(ecoNames(w.Ecosystems), ","))
		}
	}
	if diff := cmp.Diff([]string{"docs/adr/0001-x.md:9 pip"}, un); diff != "" {
		t.Errorf("unread-pin warnings (-want +got):\n%s\npins: %v", diff, pinsOf(rec))
	}
	// Read as a pin, or in a record that is not enforced, it is no finding.
	for _, d := range []string{
		"# 9. Operator\n\n## Decision\n\nWe pin kopf to 1.40.1.\n",
		"# 9. Operator\n\n## Status\n\nProposed\n\n## Decision\n\nThe kopf that requirements.txt has (1.40.1) stays.\n",
	} {
		_, ws := groundOne(t, "pip", d)
		if InDoubt(ws) {
			t.Errorf("%q: warnings %v, want none in doubt", d, ws)
		}
	}
}

func ecoNames(es []pin.Ecosystem) []string {
	var out []string
	for _, e := range es {
		out = append(out, string(e))
	}
	return out
}

// FuzzMentions: any decision line yields candidates without panicking, each
// with a version and names that are single words.
func FuzzMentions(f *testing.F) {
	for _, c := range groundCases {
		for _, ln := range strings.Split(c.doc, "\n") {
			f.Add(ln, "fixed versions")
		}
	}
	f.Fuzz(func(t *testing.T, ln, heading string) {
		for _, m := range mentions(ln, 1, heading) {
			if m.version == "" {
				t.Fatalf("mention without a version: %+v", m)
			}
			for _, n := range m.names {
				if n == "" || strings.ContainsAny(n, " \t\n") {
					t.Fatalf("bad name %q in %+v", n, m)
				}
			}
		}
	})
}

// TestRangesInProseAreNoCandidates: "Pin X to >= 6.0.1" says a range.
func TestRangesInProseAreNoCandidates(t *testing.T) {
	for _, ln := range []string{"- Pin **PyYAML** to **>= 6.0.1** to guarantee it.", "keep lodash at ^4.17.21", "hold rails at ~> 7.1.3", "pin x to 1.2.3,<2"} {
		if got := mentions(ln, 1, "decision"); len(got) != 0 {
			t.Errorf("%q: candidates %+v, want none", ln, got)
		}
	}
}

// TestGroundLeavesWhatItCannotConfirm: manifests that disagree on a
// package's version confirm none, and raise no unread-pin warning; a
// pins: list entry without an ecosystem stays as written (ADR 0200).
func TestGroundLeavesWhatItCannotConfirm(t *testing.T) {
	repo := fstest.MapFS{
		"go.mod":           {Data: []byte("module a\n\nrequire github.com/spf13/cobra v1.10.2\n")},
		"tools/x/go.mod":   {Data: []byte("module b\n\nrequire github.com/spf13/cobra v1.9.1 // indirect\n")},
		"requirements.txt": {Data: []byte("redis==5.0.4\n")},
	}
	rec, ws := Parse("adr/0140-cobra.md", []byte("# 140. Cobra\n\n## Status\n\nAccepted\n\n## Decision\n\nUse github.com/spf13/cobra v1.10.2 for the command line.\n"))
	recs, ws := Ground([]Record{rec}, ws, Declared(repo))
	if len(recs[0].Pins) != 0 || InDoubt(ws) {
		t.Errorf("pins %v, warnings %v; want none: the go.mod files disagree", pinsOf(recs[0]), ws)
	}
	rec, ws = Parse("adr/0005-redis.md", []byte("---\nstatus: accepted\npins:\n  - package: redis\n    version: 17.0.0\n---\n# 5. Keep redis\n"))
	recs, ws = Ground([]Record{rec}, ws, Declared(repo))
	if diff := cmp.Diff([]string{" redis 17.0.0"}, pinsOf(recs[0])); diff != "" || len(ws) != 1 {
		t.Errorf("pins (-want +got):\n%s\nwarnings %v, want the no-ecosystem warning", diff, ws)
	}
}

// FuzzGround: any decision, grounded against every fixture repository,
// yields pins with an ecosystem pinbot knows, a package and a full version,
// and each pin it reports unread (ADR 0317, ADR 0389) names a line of the
// record and an ecosystem.
func FuzzGround(f *testing.F) {
	for _, c := range groundCases {
		f.Add(c.doc)
	}
	f.Add("# 3. Stack\n\n## Status\n\nAccepted\n\n## Decision\n\n| 15.1.12 | Next.js | Spring Boot 3.2.1 | `kopf==1.40.1` |\n")
	var declared []pin.Declaration
	for _, fsys := range manifests {
		declared = append(declared, Declared(fsys)...)
	}
	declared = append(declared, Declared(repo389)...)
	f.Fuzz(func(t *testing.T, doc string) {
		rec, ws := Parse("docs/adr/0001-x.md", []byte(doc))
		recs, gws := Ground([]Record{rec}, ws, declared)
		lines := strings.Count(doc, "\n") + 1
		for _, w := range gws {
			if w.Unreadable && strings.Contains(w.Message, "fails closed") && (w.Line < 1 || w.Line > lines || len(w.Ecosystems) == 0 || w.Message == "") {
				t.Fatalf("an unread pin that names no line of the record or no ecosystem: %+v", w)
			}
		}
		for _, p := range recs[0].Pins {
			if p.Package == "" || p.Version == "" {
				t.Fatalf("pin without package or version: %+v", p)
			}
			if p.Ecosystem != "" && !slices.Contains(pin.Ecosystems, p.Ecosystem) {
				t.Fatalf("pin of an ecosystem pinbot does not know: %+v", p)
			}
		}
	})
}

// TestGroundedPinsOfADoubtfulRecordAreInDoubt: a record whose status
// pinbot does not know lists the pins Ground confirmed among its doubtful
// ones, so that a pull request moving one gets error (ADR 0262).
func TestGroundedPinsOfADoubtfulRecordAreInDoubt(t *testing.T) {
	rec, ws := Parse("docs/adr/0004-messaging.md", []byte("# 4. Messaging\n\n## Status\n\nRatified\n\n## Decision\n\nChosen: **MassTransit 8.3.6**.\n"))
	_, ws = Ground([]Record{rec}, ws, Declared(manifests["nuget"]))
	var doubtful []string
	for _, w := range ws {
		for _, p := range w.Doubtful {
			doubtful = append(doubtful, string(p.Ecosystem)+" "+p.Package+" "+p.Version)
		}
	}
	if diff := cmp.Diff([]string{"nuget masstransit 8.3.6"}, doubtful); diff != "" {
		t.Errorf("doubtful pins (-want +got):\n%s", diff)
	}
}

// TestGroundYAMLRecord: a YAML record's decision is read for candidates
// too.
func TestGroundYAMLRecord(t *testing.T) {
	rec, ws := Parse("docs/decisions/004-messaging.yaml", []byte("number: 4\ntitle: Messaging\nstatus: accepted\ndecision: |\n  We evaluated three brokers.\n  Chosen: MassTransit 8.3.6, as the team knows it.\n"))
	recs, _ := Ground([]Record{rec}, ws, Declared(manifests["nuget"]))
	if diff := cmp.Diff([]string{"nuget masstransit 8.3.6"}, pinsOf(recs[0])); diff != "" {
		t.Errorf("pins (-want +got):\n%s", diff)
	}
	if len(recs[0].Pins) == 1 && recs[0].Pins[0].Source.Line != 6 {
		t.Errorf("line %d, want 6", recs[0].Pins[0].Source.Line)
	}
}
