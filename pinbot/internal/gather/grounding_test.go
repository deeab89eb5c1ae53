package gather_test

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/internal/adr"
	"github.com/kubetenant/kubetenant/internal/pin"
	"github.com/kubetenant/kubetenant/pinbot/internal/gather"
	"github.com/kubetenant/kubetenant/pinbot/internal/gitrepo"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
	"github.com/kubetenant/kubetenant/pinbot/test/gitrepotest"
)

// TestRulesGroundLikeTheWholeTree: the records' pins that only a Gradle
// build script or an Argo CD source grounds (ADR 0362) are the App's and
// pinbot evaluate's pins too, not only `pinbot pins`'s. On 2fbf36f the
// sources showed the rules' reader manifests alone, so both pins below
// were pins of the whole tree and not of the App (fewer pins: a pass
// where `pinbot pins` enforces).
func TestRulesGroundLikeTheWholeTree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	files := map[string]string{
		"docs/adr/0007-versions.md": "# 7. Versions\n\n## Status\n\nAccepted\n\n## Decision\n\n| Item | Version |\n|---|---|\n| `org.springframework.boot` plugin | **3.5.13** |\n\n- **Upstream chart** (`oci://ghcr.io/coder/chart/coder` v2.33.7) deployed as an Argo CD Application.\n",
		"api/build.gradle":          "plugins {\n\tid 'java'\n\tid 'org.springframework.boot' version '3.5.13'\n}\n",
		"deploy/values.yaml":        "apps:\n  coder:\n    repoURL: ghcr.io/coder/chart\n    chart: coder\n    targetRevision: 2.33.7\n",
		"settings.gradle":           "rootProject.name = 'app'\n",
	}
	g := gitrepotest.New(t)
	g.Write(files)
	sha := g.Commit("Initial commit")

	// What `pinbot pins` reads: the whole tree.
	fsys := os.DirFS(g.Dir)
	recs, ws, err := adr.Load(fsys, []string{"docs/adr"})
	if err != nil {
		t.Fatal(err)
	}
	recs, _ = adr.Ground(recs, ws, adr.Declared(fsys))
	want := enforcedPins(adr.Pins(recs))
	if len(want) != 2 {
		t.Fatalf("the whole tree grounds %v, want the plugin and the chart", want)
	}

	local, err := gitrepo.Open(ctx, g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	fromGit := gather.NewGatherer(4).Rules(ctx, &source.Git{Repo: local}, "acme/app", sha)
	if diff := cmp.Diff(want, enforcedPins(fromGit.Pins)); diff != "" {
		t.Errorf("pinbot evaluate's rules (-whole tree +git source):\n%s", diff)
	}

	sim := githubtest.New(t, githubtest.Options{})
	repo := sim.CreateRepo("acme", "app", false)
	head := repo.Commit("main", "", files, "Initial commit", githubtest.Author{})
	gh := githubSource(t, sim, repo, &counter{})
	fromGitHub := gather.NewGatherer(4).Rules(ctx, gh, "acme/app", head)
	if diff := cmp.Diff(want, enforcedPins(fromGitHub.Pins)); diff != "" {
		t.Errorf("the App's rules (-whole tree +GitHub source):\n%s", diff)
	}
}

func enforcedPins(ps []pin.Pin) []string {
	var out []string
	for _, p := range ps {
		if p.Enforced {
			out = append(out, string(p.Ecosystem)+" "+p.Package+" "+p.Version)
		}
	}
	return out
}
