package gather_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/gather"
	"github.com/kubetenant/kubetenant/pinbot/internal/ghclient"
	"github.com/kubetenant/kubetenant/pinbot/internal/gitrepo"
	"github.com/kubetenant/kubetenant/pinbot/internal/render"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
	"github.com/kubetenant/kubetenant/pinbot/test/ecotest"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
	"github.com/kubetenant/kubetenant/pinbot/test/gitrepotest"
)

// counter counts every request sent towards GitHub.
type counter = githubtest.Counter

// githubSource is the GitHub source of repo through a real installation
// client (go-github over ghinstallation) counting its requests in n.
func githubSource(t *testing.T, sim *githubtest.Server, repo *githubtest.Repo, n *counter) *source.GitHub {
	t.Helper()
	clients, err := ghclient.NewClients(ghclient.Config{
		BaseURL: sim.URL(), AppID: sim.App().ID, PrivateKey: sim.PrivateKeyPEM(), Base: n,
		Tune: func(tr *ghclient.Transport) { tr.Backoff = time.Millisecond },
	})
	if err != nil {
		t.Fatal(err)
	}
	gh, _ := clients.For(sim.InstallationID())
	dl, _ := clients.Download(sim.InstallationID())
	repos := &source.Repos{Identity: source.Identity{AppID: sim.App().ID, AppSlug: sim.App().Slug}, Cache: source.NewCache(64 << 20)}
	return repos.Open(gh, dl, repo.Owner, repo.Name)
}

type scenario struct {
	name   string
	files  map[string]string // base
	branch string
	commit map[string]string // head changes
	remove []string          // files the head deletes
	links  map[string]string // symbolic links the head writes, by path and target
	msg    string
	author githubtest.Author
	pr     githubtest.PROptions
}

func ecoScenarios(t *testing.T) []scenario {
	t.Helper()
	fixtures, err := ecotest.Load()
	if err != nil {
		t.Fatal(err)
	}
	var out []scenario
	for _, f := range fixtures {
		for _, s := range f.Scenarios {
			changed, err := s.Apply(f.Files)
			if err != nil {
				t.Fatal(err)
			}
			sc := scenario{name: f.Name + "/" + s.Name, files: f.Files, branch: s.Branch, commit: changed, msg: s.Commit,
				pr: githubtest.PROptions{Head: s.Branch, Title: s.Title, Body: s.Body}}
			switch s.Author {
			case "dependabot[bot]":
				sc.author, sc.pr.User = githubtest.Dependabot, githubtest.DependabotUser
			case "renovate[bot]":
				sc.author, sc.pr.User = githubtest.Renovate, githubtest.RenovateUser
			}
			out = append(out, sc)
		}
	}
	return out
}

// TestSameInputFromGitAndGitHub runs each repository of the ecosystem
// fixtures through both sources: the simulator's git repository read with
// git (pinbot evaluate's source) and the same repository read through the
// simulator's REST API (the App's source) must give the same enforce.Input
// and the same comment.
func TestSameInputFromGitAndGitHub(t *testing.T) {
	t.Parallel()
	for _, sc := range append(ecoScenarios(t), kopfScenario(t), workspaceScenario(), dedupeScenario(), symlinkScenario()) {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			sim := githubtest.New(t, githubtest.Options{})
			repo := sim.CreateRepo("acme", "app", false)
			repo.Commit("main", "", sc.files, "Initial commit", githubtest.Author{})
			changes := map[string][]byte{}
			for p, c := range sc.commit {
				changes[p] = []byte(c)
			}
			for _, p := range sc.remove {
				changes[p] = nil
			}
			head := repo.CommitSymlinks(sc.branch, "main", changes, sc.links, sc.msg, sc.author)
			number, _ := repo.OpenPR(sc.pr)
			id, _ := repo.StartCheckRun(head, "memory-verification", githubtest.GitHubActions, "in_progress")
			repo.CompleteCheckRun(id, "failure")

			n := &counter{}
			gh := githubSource(t, sim, repo, n)
			pr, err := gh.PullRequest(ctx, number)
			if err != nil {
				t.Fatal(err)
			}
			n.Take()
			fromGitHub := gather.NewGatherer(16).Gather(ctx, gh, gather.Target{Repo: "acme/app", PR: pr})
			t.Logf("GitHub calls: %q; changes %v; errors %v", n.Take(), fromGitHub.Input.Changes, fromGitHub.Input.ReadErrors)

			// The git source gets the pull request and check runs as
			// `gh api` prints them, like pinbot evaluate's --pr and --checks.
			runs, _, err := gh.GH.Checks.ListCheckRunsForRef(ctx, "acme", "app", head, nil)
			if err != nil {
				t.Fatal(err)
			}
			local, err := gitrepo.Open(ctx, repo.Dir())
			if err != nil {
				t.Fatal(err)
			}
			git := &source.Git{Repo: local, PR: pr, Runs: source.RunsFromGitHub(runs)}
			fromGit := gather.NewGatherer(16).Gather(ctx, git, gather.Target{Repo: "acme/app", PR: pr})

			if sc.name == "dedupe/requirements" {
				if v := enforce.Evaluate(fromGitHub.Input).Verdict; v != enforce.NotApplicable {
					t.Errorf("duplicate requirements file deleted, the other still pins: verdict %s, want not-applicable; changes %v kept %v", v, fromGitHub.Input.Changes, fromGitHub.Input.Kept)
				}
			}
			if sc.name == "symlink/requirements" {
				v := enforce.Evaluate(fromGitHub.Input).Verdict
				if v != enforce.Error && v != enforce.Block {
					t.Errorf("requirements.txt replaced by a link to a file pinning kopf 1.42.0: verdict %s, want error or block; changes %v errors %v", v, fromGitHub.Input.Changes, fromGitHub.Input.ReadErrors)
				}
				if !strings.Contains(fmt.Sprint(fromGitHub.Input.ReadErrors), "requirements.txt: the manifest is a symbolic link") {
					t.Errorf("the link is not named among the read errors: %v", fromGitHub.Input.ReadErrors)
				}
			}
			if sc.name == "gowork/root-require" {
				if v := enforce.Evaluate(fromGitHub.Input).Verdict; v != enforce.Block {
					t.Errorf("workspace bump of a pinned module: verdict %s, want block; changes %v", v, fromGitHub.Input.Changes)
				}
			}
			if diff := cmp.Diff(inputOf(fromGit.Input), inputOf(fromGitHub.Input), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("enforce.Input from git (-) and GitHub (+) differ:\n%s", diff)
			}
			ref := render.Repo{Owner: "acme", Name: "app", BaseRef: "main"}
			a, b := render.Comment(enforce.Evaluate(fromGit.Input), ref, nil), render.Comment(enforce.Evaluate(fromGitHub.Input), ref, nil)
			if a != b {
				t.Errorf("comments differ:\n--- git\n%s\n--- GitHub\n%s", a, b)
			}
			if !strings.HasPrefix(a, render.Marker) {
				t.Errorf("comment lacks the marker:\n%s", a)
			}
		})
	}
}

// input is enforce.Input with comparable errors.
type input struct {
	enforce.Input
	Errors []string
}

func inputOf(in enforce.Input) input {
	out := input{Input: in}
	for _, e := range in.ReadErrors {
		out.Errors = append(out.Errors, e.Error())
	}
	out.Input.ReadErrors = nil
	return out
}

// workspaceScenario moves k8s.io/api in the root module of a Go workspace
// whose operator module the ADR pins: Go selects the new version for the
// operator too (issue 17, item 1), which Gather must see although
// operator/go.mod does not change.
func workspaceScenario() scenario {
	files := map[string]string{
		"go.work":             "go 1.22\n\nuse (\n\t.\n\t./operator\n)\n",
		"go.mod":              "module example.com/root\n\ngo 1.22\n",
		"operator/go.mod":     "module example.com/operator\n\ngo 1.22\n\nrequire k8s.io/api v0.37.2\n",
		"adr/0003-pin-k8s.md": "---\nstatus: accepted\npins:\n  - ecosystem: gomod\n    package: k8s.io/api\n    version: v0.37.2\n    paths: [operator/go.mod]\n---\n# 3. Pin k8s.io/api\n",
	}
	return scenario{name: "gowork/root-require", files: files, branch: "bump-root",
		commit: map[string]string{"go.mod": "module example.com/root\n\ngo 1.22\n\nrequire k8s.io/api v0.38.0\n"},
		msg:    "Require k8s.io/api v0.38.0", pr: githubtest.PROptions{Head: "bump-root", Title: "Require k8s.io/api v0.38.0"}}
}

// dedupeScenario deletes one of two requirements files of one project (one
// folder) that both pin kopf at the ADR's version (issue 17, item 11): the
// other, untouched, still holds the pin for the same build. A keeper in
// another folder would not excuse it for pip (ADR 0257).
func dedupeScenario() scenario {
	files := map[string]string{
		"requirements.txt":     "kopf==1.40.1\n",
		"requirements-dev.txt": "kopf==1.40.1\n",
		"adr/0083-kopf.md":     "---\nstatus: accepted\npins:\n  - ecosystem: pip\n    package: kopf\n    version: 1.40.1\n---\n# 83. Pin kopf\n",
	}
	return scenario{name: "dedupe/requirements", files: files, branch: "dedupe", remove: []string{"requirements-dev.txt"},
		msg: "Drop the duplicate requirements file", pr: githubtest.PROptions{Head: "dedupe", Title: "Drop the duplicate requirements file"}}
}

// symlinkScenario replaces requirements.txt by a symbolic link to a file
// pinning kopf 1.42.0 under a name pinbot does not read (issue 17, item
// 10): pip follows the link. GitHub's comparison gives no file modes, so
// the App's source must find the link some other way.
func symlinkScenario() scenario {
	files := map[string]string{
		"requirements.txt": "kopf==1.40.1\n",
		"adr/0083-kopf.md": "---\nstatus: accepted\npins:\n  - ecosystem: pip\n    package: kopf\n    version: 1.40.1\n---\n# 83. Pin kopf\n",
	}
	return scenario{name: "symlink/requirements", files: files, branch: "link",
		commit: map[string]string{"pins/real.txt": "kopf==1.42.0\n"}, links: map[string]string{"requirements.txt": "pins/real.txt"},
		msg: "Keep requirements in pins/", pr: githubtest.PROptions{Head: "link", Title: "Keep requirements in pins/"}}
}

// kopfScenario is the story's pull request: Dependabot moves kopf, pinned
// by decision record 083 of a Python operator, from 1.40.1 to 1.42.0.
func kopfScenario(t *testing.T) scenario {
	t.Helper()
	files := gitrepotest.PyOperator(t)
	return scenario{
		name: "pyoperator/kopf", files: files, branch: "dependabot/uv/kopf-1.42.0",
		commit: map[string]string{
			"pyproject.toml": strings.Replace(files["pyproject.toml"], "kopf==1.40.1", "kopf==1.42.0", 1),
			"uv.lock":        strings.Replace(files["uv.lock"], "name = \"kopf\"\nversion = \"1.40.1\"", "name = \"kopf\"\nversion = \"1.42.0\"", 1),
		},
		msg: "Bump kopf from 1.40.1 to 1.42.0\n\nBumps [kopf](https://github.com/nolar/kopf) from 1.40.1 to 1.42.0.", author: githubtest.Dependabot,
		pr: githubtest.PROptions{Head: "dependabot/uv/kopf-1.42.0", Title: "Bump kopf from 1.40.1 to 1.42.0", User: githubtest.DependabotUser,
			Body: "Bumps [kopf](https://github.com/nolar/kopf) from 1.40.1 to 1.42.0."},
	}
}
