package pin

import (
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEveryRowFillsItsFacts holds every registry row to each per-ecosystem
// fact other tools name (ADR 0341, issue 37): filled in, or said absent
// with a reason in Lacks, never both and never silently empty.
func TestEveryRowFillsItsFacts(t *testing.T) {
	for _, d := range registry {
		filled := map[string]bool{
			"Advisory":        d.Advisory != "",
			"Dependabot":      len(d.Dependabot) > 0,
			"RenovateTopics":  len(d.RenovateTopics) > 0,
			"RenovateAllowed": d.RenovateAllowed != nil,
			"Words":           d.Words != "",
		}
		for fact, ok := range filled {
			why, lacks := d.Lacks[fact]
			switch {
			case ok && lacks:
				t.Errorf("%s: fills %s and says it lacks it (%q)", d.Name, fact, why)
			case !ok && !lacks:
				t.Errorf("%s: %s is empty and Lacks gives no reason", d.Name, fact)
			case lacks && why == "":
				t.Errorf("%s: Lacks[%s] gives an empty reason", d.Name, fact)
			}
		}
		for fact := range d.Lacks {
			if _, known := filled[fact]; !known {
				t.Errorf("%s: Lacks names %q, which is no fact", d.Name, fact)
			}
		}
		if d.AdvisoryKeepsV && d.Advisory == "" {
			t.Errorf("%s: AdvisoryKeepsV without an Advisory name", d.Name)
		}
		if d.Words != "" {
			if _, err := regexp.Compile(d.Words); err != nil {
				t.Errorf("%s: Words: %v", d.Name, err)
			}
		}
	}
}

// TestFactLookupsKeepTodaysAnswers: the lookups over the registry rows
// give the answers the switches and maps they replace gave (issue 37 moved
// the facts; it changed no behaviour).
func TestFactLookupsKeepTodaysAnswers(t *testing.T) {
	// source.AdvisoryEcosystem's switch.
	wantAdvisory := map[Ecosystem]string{
		Actions: "actions", Composer: "composer", Gomod: "go", Maven: "maven", Gradle: "maven",
		NPM: "npm", NuGet: "nuget", Pip: "pip", Bundler: "rubygems", Cargo: "rust",
	}
	// render's dependabotEcosystem switch and its pip case ("pip" (or "uv")).
	wantDependabot := map[Ecosystem][]string{Pip: {"pip", "uv"}}
	// botcfg.RenovateAllowed's switch, for the version "v1.2.3" and "1.2.3".
	wantAllowed := map[Ecosystem][2]string{
		Pip: {"==v1.2.3", "==1.2.3"}, Docker: {"v1.2.3", "1.2.3"},
		Cargo: {"=1.2.3", "=1.2.3"}, Terraform: {"=1.2.3", "=1.2.3"},
		NuGet: {"[v1.2.3]", "[1.2.3]"}, Maven: {"[v1.2.3]", "[1.2.3]"}, Gradle: {"[v1.2.3]", "[1.2.3]"},
	}
	for _, e := range append(slices.Clone(Ecosystems), "", "conda") {
		got, ok := AdvisoryEcosystem(e)
		want, wantOK := wantAdvisory[e]
		if got != want || ok != wantOK {
			t.Errorf("AdvisoryEcosystem(%q) = %q, %v; want %q, %v", e, got, ok, want, wantOK)
		}
		wantD, ok := wantDependabot[e]
		if !ok {
			wantD = []string{string(e)}
		}
		if diff := cmp.Diff(wantD, DependabotNames(e)); diff != "" {
			t.Errorf("DependabotNames(%q) (-want +got):\n%s", e, diff)
		}
		wantA, ok := wantAllowed[e]
		if !ok {
			wantA = [2]string{"1.2.3", "1.2.3"}
		}
		for i, v := range []string{"v1.2.3", " ==1.2.3"} {
			if got := RenovateAllowed(e, v); got != wantA[i] {
				t.Errorf("RenovateAllowed(%q, %q) = %q, want %q", e, v, got, wantA[i])
			}
		}
	}
	if got := RenovateAllowed(NuGet, "[1.2.3]"); got != "[1.2.3]" {
		t.Errorf("RenovateAllowed(nuget, [1.2.3]) = %q, want [1.2.3]", got)
	}

	// source.affectsSpec's Go case: only Go's advisory versions keep "v".
	for _, e := range Ecosystems {
		want := "1.2.3"
		if e == Gomod {
			want = "v1.2.3"
		}
		if got := AdvisoryVersion(e, " ==v1.2.3"); got != want {
			t.Errorf("AdvisoryVersion(%q, ==v1.2.3) = %q, want %q", e, got, want)
		}
	}

	// dependabot.EcosystemFor's and render's Actions case: workflows are
	// the "/" entry's; other files their directory's.
	for _, tt := range []struct {
		e          Ecosystem
		file, want string
	}{
		{Actions, ".github/workflows/ci.yml", "/"},
		{Actions, ".github/actions/setup/action.yml", "/"},
		{Pip, "services/api/pyproject.toml", "/services/api"},
		{NPM, "/web/package.json", "/web"},
		{Gomod, "go.mod", "/"},
		{Docker, "./Dockerfile", "/"},
	} {
		if got := DependabotDirectory(tt.e, tt.file); got != tt.want {
			t.Errorf("DependabotDirectory(%q, %q) = %q, want %q", tt.e, tt.file, got, tt.want)
		}
	}

	// bot.go's topicToEcos map and Datasources' Maven/Gradle "maven".
	for topic, want := range map[string]Ecosystem{"module": Gomod, "helm release": Helm, "helm chart": Helm,
		"action": Actions, "docker tag": Docker, "Docker digest": Docker, "image": Docker,
		"rust crate": Cargo, "terraform": Terraform, "dependency": "", "package": "", "digest": ""} {
		if got := topicEcosystem(topic); got != want {
			t.Errorf("topicEcosystem(%q) = %q, want %q", topic, got, want)
		}
	}
	for ds, want := range map[string]Ecosystem{"maven": "", "pypi": Pip, "go": Gomod, "crate": Cargo, "docker": Docker, "nope": ""} {
		if got := datasourceEcosystem(ds); got != want {
			t.Errorf("datasourceEcosystem(%q) = %q, want %q", ds, got, want)
		}
	}
	for e, want := range map[Ecosystem][]string{Maven: {"maven"}, Gradle: {"maven"}, Actions: {"github-actions", "github-releases", "github-tags"}, Helm: {"helm"}} {
		if diff := cmp.Diff(want, Datasources(e)); diff != "" {
			t.Errorf("Datasources(%q) (-want +got):\n%s", e, diff)
		}
	}

	// internal/adr's ecosystemWords table.
	for text, want := range map[string][]Ecosystem{
		"We pin it in go.mod.":                        {Gomod},
		"The Helm chart pins it (Chart.lock).":        {Helm},
		"requirements-dev.txt and uv.lock":            {Pip},
		"package-lock.json, via pnpm":                 {NPM},
		"the base image of the Dockerfile":            {Docker},
		"in .github/workflows":                        {Actions},
		"Helm and npm":                                {NPM, Helm}, // the registry's order
		"Cargo.toml, Gemfile, pom.xml, composer.json": nil,
	} {
		if diff := cmp.Diff(want, Mentioned(text)); diff != "" {
			t.Errorf("Mentioned(%q) (-want +got):\n%s", text, diff)
		}
	}

	// ParseEcosystem still reads "uv", which moved from pip's Aliases to
	// its Dependabot names.
	for _, s := range []string{"uv", "docker-compose", "bun", "go_modules", "github_actions"} {
		if _, ok := ParseEcosystem(s); !ok {
			t.Errorf("ParseEcosystem(%q) is unknown", s)
		}
	}
}
