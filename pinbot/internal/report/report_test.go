package report_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
	"github.com/kubetenant/kubetenant/pinbot/internal/render"
	"github.com/kubetenant/kubetenant/pinbot/internal/report"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

func TestApply(t *testing.T) {
	ctx := context.Background()
	sim := githubtest.New(t, githubtest.Options{})
	r := sim.CreateRepo("acme", "op", false)
	r.Commit("main", "", map[string]string{"a": "1"}, "init", githubtest.Author{})
	r.Commit("bump", "main", map[string]string{"a": "2"}, "bump", githubtest.Dependabot)
	n, _ := r.OpenPR(githubtest.PROptions{Head: "bump", User: githubtest.DependabotUser})
	// Anyone can paste the marker: this comment is not pinbot's.
	r.IssueComment(n, githubtest.User{Login: "mallory", ID: 5}, render.Marker+"\nfake")

	itr, err := ghinstallation.New(http.DefaultTransport, sim.App().ID, sim.InstallationID(), sim.PrivateKeyPEM())
	if err != nil {
		t.Fatal(err)
	}
	itr.BaseURL = sim.URL()
	gh := github.NewClient(&http.Client{Transport: itr})
	gh.BaseURL, _ = url.Parse(sim.URL())
	_, rep := report.Open(&source.Repos{Identity: source.Identity{AppID: sim.App().ID, AppSlug: sim.App().Slug}}, gh, nil, "acme", "op")
	d := report.Decision{Owner: "acme", Repo: "op", Number: n, HeadSHA: r.HeadSHA(n)}

	steps := []struct {
		name    string
		result  enforce.Result
		comment string
		want    report.Actions
		state   string
		check   string
	}{
		{"error: failing check only", enforce.Result{Verdict: enforce.Error, Errors: []string{"reading uv.lock: boom"}}, "", report.Actions{CheckRun: "created"}, "open", "failure"},
		{"pending: no new comment", enforce.Result{Verdict: enforce.Pending, Comment: true}, render.Marker + "\npending", report.Actions{CheckRun: "updated"}, "open", "in_progress"},
		{"block without close", enforce.Result{Verdict: enforce.Block, Comment: true}, render.Marker + "\nblocked", report.Actions{CheckRun: "updated", Comment: "created"}, "open", "failure"},
		{"same block again: nothing written", enforce.Result{Verdict: enforce.Block, Comment: true}, render.Marker + "\nblocked", report.Actions{CheckRun: "unchanged", Comment: "unchanged"}, "open", "failure"},
		{"block and close", enforce.Result{Verdict: enforce.Block, Comment: true, Close: true}, render.Marker + "\nclosed", report.Actions{CheckRun: "unchanged", Comment: "updated", Closed: true}, "closed", "failure"},
	}
	// Nothing known at first: Apply looks the check run and comment up
	// once, then carries what it wrote from step to step.
	d.Known = report.Known{Open: true}
	for _, s := range steps {
		d.Result, d.Comment = s.result, s.comment
		got, known, err := rep.Apply(ctx, d)
		d.Known = known
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("%s: actions (-want +got):\n%s", s.name, diff)
		}
		if st := r.PRState(n); st != s.state {
			t.Errorf("%s: state %s, want %s", s.name, st, s.state)
		}
		runs := r.CheckRuns(d.HeadSHA, report.CheckName)
		got2 := runs[0].Conclusion
		if runs[0].Status != "completed" {
			got2 = runs[0].Status
		}
		if len(runs) != 1 || got2 != s.check {
			t.Errorf("%s: check runs %+v, want one %s", s.name, runs, s.check)
		}
	}
	// A fresh replica knows nothing, finds pinbot's own check run and
	// comment (not mallory's), and writes nothing new.
	d.Known = report.Known{}
	if got, _, err := rep.Apply(ctx, d); err != nil || got != (report.Actions{CheckRun: "unchanged", Comment: "unchanged"}) {
		t.Errorf("fresh replica: actions %+v, %v; want nothing written", got, err)
	}
	var authors []string
	for _, c := range r.Comments(n) {
		authors = append(authors, c.Author+": "+c.Body)
	}
	if diff := cmp.Diff([]string{"mallory: " + render.Marker + "\nfake", "pinbot[bot]: " + render.Marker + "\nclosed"}, authors); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}
}

// TestLongSummaryIsClipped: GitHub refuses check run summaries over 65,535
// characters; pinbot clips rather than losing the failing check.
func TestLongSummaryIsClipped(t *testing.T) {
	sim := githubtest.New(t, githubtest.Options{})
	r := sim.CreateRepo("acme", "op", false)
	sha := r.Commit("main", "", map[string]string{"a": "1"}, "init", githubtest.Author{})
	itr, err := ghinstallation.New(http.DefaultTransport, sim.App().ID, sim.InstallationID(), sim.PrivateKeyPEM())
	if err != nil {
		t.Fatal(err)
	}
	itr.BaseURL = sim.URL()
	gh := github.NewClient(&http.Client{Transport: itr})
	gh.BaseURL, _ = url.Parse(sim.URL())
	_, rep := report.Open(&source.Repos{Identity: source.Identity{AppID: sim.App().ID, AppSlug: sim.App().Slug}}, gh, nil, "acme", "op")
	res := enforce.Result{Verdict: enforce.Error}
	for i := 0; i < 3000; i++ {
		res.Errors = append(res.Errors, "reading a very long list of manifests: boom ✗")
	}
	if _, _, err := rep.Apply(context.Background(), report.Decision{Owner: "acme", Repo: "op", Number: 1, HeadSHA: sha, Result: res}); err != nil {
		t.Fatalf("Apply with a long summary: %v", err)
	}
	runs := r.CheckRuns(sha, report.CheckName)
	if len(runs) != 1 || len(runs[0].Summary) > 65535 || !strings.HasSuffix(runs[0].Summary, "(truncated)") {
		t.Errorf("check run summary of %d bytes, want a clipped one", len(runs[0].Summary))
	}
}
