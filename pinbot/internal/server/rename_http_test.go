package server_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/pinbot/internal/server"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// This file tests pinbot's handling of renamed files over HTTP: the App's
// real handler, the real go-github client, and the simulator reporting
// renames as GitHub does (status "renamed" with previous_filename). It is
// self-contained: its own repository, its own pinbot.

const renameADR = `---
status: accepted
date: 2026-05-11
pins:
  - ecosystem: pip
    package: uvicorn
    version: 0.29.0
---
# 42. Keep uvicorn at 0.29.0

## Context

uvicorn 0.30.0 changed how it reloads workers; our graceful shutdown
dropped in-flight requests under it.

## Decision

uvicorn==0.29.0 in requirements.txt, wherever the file lives.

## Consequences

Bot pull requests moving uvicorn fail their check and are closed.
`

// renameManifest is the service's requirements: long enough that moving
// it with one line changed stays a rename (GitHub's 50% similarity).
const renameManifest = `# web service
fastapi==0.111.0
uvicorn==0.29.0
pydantic==2.7.1
httpx==0.27.0
jinja2==3.1.4
`

const renameWorkflow = `name: ci
on: [pull_request]
jobs:
  memory-verification:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: make verify-memory
`

// renameRig is pinbot's server handler over HTTP, for this file's tests.
type renameRig struct {
	t    *testing.T
	sim  *githubtest.Server
	srv  *server.Server
	url  string
	logs *bytes.Buffer
}

func newRenameRig(t *testing.T, sim *githubtest.Server) *renameRig {
	t.Helper()
	logs := &bytes.Buffer{}
	srv, err := server.New(server.Config{
		AppID: sim.App().ID, AppSlug: sim.App().Slug, PrivateKey: sim.PrivateKeyPEM(),
		WebhookSecret: []byte(sim.WebhookSecret()), GitHubURL: sim.URL(), Workers: 2,
		Logger: slog.New(slog.NewJSONHandler(logs, nil)),
	})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
		if t.Failed() {
			t.Logf("pinbot logs:\n%s", logs.String())
		}
	})
	return &renameRig{t: t, sim: sim, srv: srv, url: hs.URL + "/webhook", logs: logs}
}

// send delivers ds in order, then the deliveries pinbot's own writes
// caused, as GitHub would, waiting for pinbot after each round.
func (g *renameRig) send(ds ...githubtest.Delivery) {
	g.t.Helper()
	for _, d := range ds {
		if code, err := g.sim.Deliver(context.Background(), g.url, d); err != nil || code != http.StatusAccepted {
			g.t.Fatalf("delivering %s: %d %v", d.Event, code, err)
		}
		g.srv.Wait()
	}
	for _, d := range g.sim.Deliveries() {
		if code, err := g.sim.Deliver(context.Background(), g.url, d); err != nil || code != http.StatusAccepted {
			g.t.Fatalf("delivering pinbot-caused %s: %d %v", d.Event, code, err)
		}
	}
	g.srv.Wait()
}

// renamedFiles reads the pull request's files with go-github as the
// installation and returns previous_filename by filename for the renamed
// ones: the precondition that the rename path is the one exercised.
func renamedFiles(t *testing.T, sim *githubtest.Server, r *githubtest.Repo, n int) map[string]string {
	t.Helper()
	itr, err := ghinstallation.New(http.DefaultTransport, sim.App().ID, sim.InstallationID(), sim.PrivateKeyPEM())
	if err != nil {
		t.Fatal(err)
	}
	itr.BaseURL = strings.TrimSuffix(sim.URL(), "/")
	gh := github.NewClient(&http.Client{Transport: itr})
	if gh.BaseURL, err = url.Parse(sim.URL()); err != nil {
		t.Fatal(err)
	}
	files, _, err := gh.PullRequests.ListFiles(context.Background(), r.Owner, r.Name, n, nil)
	if err != nil {
		t.Fatalf("listing the files of #%d: %v", n, err)
	}
	out := map[string]string{}
	for _, f := range files {
		if f.GetStatus() == "renamed" {
			out[f.GetFilename()] = f.GetPreviousFilename()
		}
	}
	return out
}

func TestRenamedManifestOverHTTP(t *testing.T) {
	bumped := strings.Replace(renameManifest, "uvicorn==0.29.0", "uvicorn==0.30.0", 1)
	tests := []struct {
		name string
		// files is the bot's commit: a nil value removes the file.
		files map[string][]byte
		// renamed is what GitHub must list as renamed (new: old).
		renamed map[string]string
		// verified completes a passing memory-verification on the head.
		verified bool
		// check, comments and state are what pinbot must leave.
		check    string
		comments int
		state    string
		// says are the words the check run's summary and pinbot's comment
		// must hold.
		says []string
	}{
		{
			name: "moves the manifest, the pin kept and another package bumped",
			files: map[string][]byte{
				"requirements.txt":      nil,
				"requirements/base.txt": []byte(strings.Replace(renameManifest, "httpx==0.27.0", "httpx==0.27.2", 1)),
			},
			renamed: map[string]string{"requirements/base.txt": "requirements.txt"},
			check:   "success", state: "open",
		},
		{
			name:    "moves the manifest and the pinned package with it",
			files:   map[string][]byte{"requirements.txt": nil, "requirements/base.txt": []byte(bumped)},
			renamed: map[string]string{"requirements/base.txt": "requirements.txt"},
			check:   "failure", comments: 1, state: "closed",
			says: []string{"uvicorn", "0.30.0", "requirements/base.txt", "ADR 42"},
		},
		{
			// The verification passed, but the pull request moved the
			// workflow that runs it out of the protected folder: it
			// changed what judges it, so it is blocked all the same.
			name: "moves the pinned package and the verification's workflow away, verification passing",
			files: map[string][]byte{
				"requirements.txt":         []byte(bumped),
				".github/workflows/ci.yml": nil,
				"ci/workflow.yml":          []byte(renameWorkflow),
			},
			renamed:  map[string]string{"ci/workflow.yml": ".github/workflows/ci.yml"},
			verified: true,
			check:    "failure", comments: 1, state: "closed",
			says: []string{"uvicorn", "0.30.0", ".github/workflows/ci.yml", "vouch for itself"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim := githubtest.New(t, githubtest.Options{})
			r := sim.CreateRepo("acme", "storefront", false)
			r.Commit("main", "", map[string]string{
				"adr/0042-keep-uvicorn.md": renameADR,
				"requirements.txt":         renameManifest,
				".github/workflows/ci.yml": renameWorkflow,
				"app/main.py":              "from fastapi import FastAPI\n\napp = FastAPI()\n",
			}, "Initial service", githubtest.Author{})
			g := newRenameRig(t, sim)
			branch := "renovate/requirements-layout"
			r.CommitBytes(branch, "main", tt.files, "Update the Python requirements", githubtest.Renovate)
			n, opened := r.OpenPR(githubtest.PROptions{Head: branch, Title: "Update the Python requirements", User: githubtest.RenovateUser})

			if got := renamedFiles(t, sim, r, n); !equalMaps(got, tt.renamed) {
				t.Fatalf("GitHub lists as renamed %v, want %v", got, tt.renamed)
			}
			ds := []githubtest.Delivery{opened}
			if tt.verified {
				id, started := r.StartCheckRun(r.HeadSHA(n), "memory-verification", githubtest.GitHubActions, "in_progress")
				ds = append(ds, started...)
				ds = append(ds, r.CompleteCheckRun(id, "success")...)
			}
			ds = append(ds, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success"))
			g.send(ds...)

			runs := r.CheckRuns(r.HeadSHA(n), "pinbot")
			if len(runs) != 1 || runs[0].Status != "completed" || runs[0].Conclusion != tt.check {
				t.Fatalf("pinbot check runs %+v, want one completed %q", runs, tt.check)
			}
			var own []githubtest.Comment
			for _, c := range r.Comments(n) {
				if c.Author == "pinbot[bot]" {
					own = append(own, c)
				}
			}
			if len(own) != tt.comments {
				t.Errorf("pinbot commented %d times, want %d", len(own), tt.comments)
			}
			if st := r.PRState(n); st != tt.state {
				t.Errorf("pull request %s, want %s", st, tt.state)
			}
			for _, s := range tt.says {
				if !strings.Contains(runs[0].Summary, s) {
					t.Errorf("check run summary lacks %q:\n%s", s, runs[0].Summary)
				}
				if len(own) > 0 && !strings.Contains(own[0].Body, s) {
					t.Errorf("comment lacks %q:\n%s", s, own[0].Body)
				}
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
