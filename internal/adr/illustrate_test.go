package adr

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// classRepos are the repositories the classes of ADR 0362 are read
// against, as files Declared reads.
var classRepos = map[string]fstest.MapFS{
	"npm":     {"package.json": {Data: []byte(`{"dependencies": {"next": "15.1.12", "react": "^19.0.0"}, "devDependencies": {"turbo": "2.10.4"}}`)}},
	"npm16":   {"package.json": {Data: []byte(`{"dependencies": {"next": "16.0.1"}}`)}},
	"pip":     {"requirements.txt": {Data: []byte("kopf==1.40.1\n")}},
	"actions": {".github/workflows/ci.yml": {Data: []byte("on: push\njobs:\n  b:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2\n")}},
	"gradle": {
		"api/build.gradle":     {Data: []byte("plugins {\n\tid 'java'\n\tid 'org.springframework.boot' version '3.5.13'\n\tid 'io.spring.dependency-management' version '1.1.7'\n}\n")},
		"web/build.gradle.kts": {Data: []byte("plugins {\n    id(\"org.springframework.boot\") version \"3.5.13\"\n    kotlin(\"jvm\") version \"2.0.21\"\n}\n")},
	},
	"argocd": {
		"charts/apps/Chart.yaml":  {Data: []byte("apiVersion: v2\nname: apps\nversion: 1.0.0\n")},
		"charts/apps/values.yaml": {Data: []byte("apps:\n  - name: coder\n    source:\n      repoURL: oci://ghcr.io/coder/chart\n      chart: coder\n      targetRevision: \"2.33.7\"\n  - name: aieg\n    source:\n      repoURL: oci://docker.io/envoyproxy/ai-gateway-helm\n      # keep in lockstep with the CRDs\n      targetRevision: v1.0.0\n  - name: floating\n    source:\n      repoURL: oci://ghcr.io/x/chart\n      chart: floating\n      targetRevision: \">=0.0.0\"\n")},
	},
}

const checkoutSHA = "11bd71901bbe5b1630ceea73d27597364c9af683"

// classCases are the classes of issue 35 that ADR 0362 reads: first the
// false pins (each ends in no pin), then the misses (each a pin). Records
// of our own, in the shapes real teams write; each fails on f86c3fd.
var classCases = []struct {
	name, repo, decision string
	want                 []string
}{
	// Not a decision about this repository: no pin (the from side of
	// name@version keeps only its to side).
	{"a before/after block", "actions", "Pin every action by commit SHA instead of a tag:\n\n```yaml\n# Before (mutable tag)\nuses: actions/checkout@v4\n\n# After (immutable)\nuses: actions/checkout@" + checkoutSHA + " # v4.2.2\n```\n", nil},
	{"a block a For example line introduces", "npm", "Versions are exact in package.json.\n\nFor example:\n\n```json\n{\"dependencies\": {\"next\": \"15.1.12\"}}\n```\n", nil},
	{"Bad/Good labels over blocks", "pip", "Write exact pins.\n\nBad:\n\n```requirements\nkopf>=1.40\n```\n\nGood:\n\n```requirements\nkopf==1.40.1\n```\n", nil},
	{"a shell block of commands", "pip", "Install the operator's dependencies first:\n\n```bash\npip install kopf==1.40.1\n```\n", nil},
	{"an install command in prose", "npm", "Developers run `npm install react@19.1.0` to try the release candidate locally.\n", nil},
	{"versions in links", "npm", "See the [release notes](https://github.com/vercel/next.js/releases/tag/v15.1.12) for the details (tarball: https://unpkg.com/next@15.1.12).\n", nil},
	{"the from side of an upgrade", "npm", "We upgrade next 15.1.12 → 16.0.1 in the next sprint.\n", nil},
	{"the from side of name@version", "npm", "Move from next@15.1.12 to next@16.0.1.\n", []string{"npm next 16.0.1"}},
	{"options a label opens", "npm", "We move the app to the Pages Router.\n\n**Options considered:**\n\n- keep the App Router on next 15.1.12\n- rewrite in Remix\n", nil},
	{"a history table", "npm", "We use the App Router.\n\n| Version | Date | Change |\n|---|---|---|\n| 1.1 | 2026-01-02 | next 15.1.12 adopted |\n", nil},
	{"a change log under the decision", "npm", "We use the App Router.\n\n### Change log\n\n- 2026-01-02: next 15.1.12\n", nil},
	{"a bullet under a heading about bug fixes", "npm", "We use the App Router.\n\n### Bug fixes\n\n- `left-pad`: 1.3.0\n", nil},
	// Misses: each is a pin.
	{"the to side of an upgrade, named by its from side", "npm16", "Upgrade next from 15.1.12 to 16.0.1.\n", []string{"npm next 16.0.1"}},
	{"the to side of an arrow", "npm16", "- `next` 15.1.12 → 16.0.1\n", []string{"npm next 16.0.1"}},
	{"a product name a manifest pins under its package's name", "npm", "| Tool | Version |\n|---|---|\n| Turborepo | 2.10.4 |\n", []string{"npm turbo 2.10.4"}},
	{"Gradle plugin versions in a table, grounded in plugins blocks", "gradle", "| Item | Version |\n|---|---|\n| `org.springframework.boot` plugin | **3.5.13** |\n| `io.spring.dependency-management` | **1.1.7** |\n| Kotlin `org.jetbrains.kotlin.jvm` | 2.0.21 |\n",
		[]string{"gradle org.springframework.boot 3.5.13", "gradle io.spring.dependency-management 1.1.7", "gradle org.jetbrains.kotlin.jvm 2.0.21"}},
	{"an oci:// chart with a version, grounded in an Argo CD source", "argocd", "- **Upstream chart** (`oci://ghcr.io/coder/chart/coder` v2.33.7) deployed as an Argo CD Application.\n- Bump `ai-gateway-helm` v0.7.0 → v1.0.0.\n",
		[]string{"helm coder v2.33.7", "helm ai-gateway-helm v1.0.0"}},
}

func TestIllustrationsAndGroundingClasses(t *testing.T) {
	for _, tt := range classCases {
		t.Run(tt.name, func(t *testing.T) {
			doc := "# 7. A decision\n\n## Status\n\nAccepted\n\n## Decision\n\n" + tt.decision
			rec, ws := Parse("docs/adr/0007-a-decision.md", []byte(doc))
			recs, _ := Ground([]Record{rec}, ws, Declared(classRepos[tt.repo]))
			if diff := cmp.Diff(tt.want, pinsOf(recs[0])); diff != "" {
				t.Errorf("pins (-want +got):\n%s\nrejected: %+v", diff, recs[0].Rejected)
			}
		})
	}
}

// TestGroundingOnlyDeclarations: what the plugins blocks and Argo CD
// sources declare, and what they do not (a range, a floating revision).
func TestGroundingOnlyDeclarations(t *testing.T) {
	var got []string
	for _, d := range Declared(classRepos["argocd"]) {
		got = append(got, string(d.Ecosystem)+" "+d.Package+" "+d.Exact)
	}
	for _, d := range Declared(classRepos["gradle"]) {
		got = append(got, string(d.Ecosystem)+" "+d.Package+" "+d.Exact)
	}
	want := []string{"helm coder 2.33.7", "helm ai-gateway-helm v1.0.0", "gradle org.springframework.boot 3.5.13", "gradle io.spring.dependency-management 1.1.7", "gradle org.springframework.boot 3.5.13", "gradle org.jetbrains.kotlin.jvm 2.0.21"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// FuzzMask: mask keeps every line and never grows a line.
func FuzzMask(f *testing.F) {
	for _, tt := range classCases {
		f.Add(tt.decision)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := mask(s)
		if got, want := len(splitLines(m.text)), len(splitLines(s)); got != want {
			t.Fatalf("mask changed the line count: %d, want %d", got, want)
		}
	})
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
