package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// TestSecurityUpdateSameVerdictCLIAndApp is issue 36, item 5: a security
// update is decided in enforce, from advisories read through source, so
// that pinbot serve (the App, on the simulator) and pinbot evaluate (on
// the same repository's git, with the advisories GitHub serves) reach the
// same decision: Dependabot's bump of the pinned kopf to its first patched
// version blocks, is a security update, and is not closed. The App used to
// change its result after enforce.Evaluate, and the CLI said "pinbot
// closes it".
func TestSecurityUpdateSameVerdictCLIAndApp(t *testing.T) {
	sim := githubtest.New(t, githubtest.Options{})
	sim.AddAdvisory(githubtest.Advisory{GHSA: "GHSA-4x5v-gmq8-25ch", CVE: "CVE-2026-41234", Severity: "high", Summary: "Unbounded admission review bodies",
		Vulnerabilities: []githubtest.Vulnerability{{Ecosystem: "pip", Name: "kopf", Range: "< 1.42.1", FirstPatched: "1.42.1"}}})
	key := writeFile(t, "key.pem", string(sim.PrivateKeyPEM()))
	env := map[string]string{"PINBOT_WEBHOOK_SECRET": sim.WebhookSecret()}
	o, err := parseServe([]string{"--listen", "127.0.0.1:0", "--app-id", "4242", "--private-key-file", key, "--github-url", sim.EnterpriseURL(), "--upstream-github-url", sim.URL(),
		"--redeliver-interval", "0", "--sweep-interval", "0"}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	o.cfg.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, o, ready) }()
	base := "http://" + <-ready
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve returned %v after cancel", err)
		}
	}()

	r := sim.CreateRepo("acme", "op", false)
	r.Commit("main", "", map[string]string{
		"requirements.txt":     "kopf==1.40.1\n",
		"adr/0001-pin-kopf.md": "---\nstatus: accepted\npins:\n  - ecosystem: pip\n    package: kopf\n    version: 1.40.1\n---\n# 1. Pin kopf\n",
	}, "init", githubtest.Author{})
	branch := "dependabot/pip/kopf-1.42.1"
	title := "Bump kopf from 1.40.1 to 1.42.1"
	head := r.Commit(branch, "main", map[string]string{"requirements.txt": "kopf==1.42.1\n"}, title, githubtest.Dependabot)
	n, opened := r.OpenPR(githubtest.PROptions{Head: branch, User: githubtest.DependabotUser, Title: title})
	for _, d := range []githubtest.Delivery{opened, r.CompleteSuite(r.HeadSHA(n), githubtest.GitHubActions, "success")} {
		if code, err := sim.Deliver(ctx, base+"/webhook", d); err != nil || code != http.StatusAccepted {
			t.Fatalf("deliver %s: %d %v", d.Event, code, err)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	appDone := func() bool {
		runs := r.CheckRuns(head, "pinbot")
		return len(runs) > 0 && runs[len(runs)-1].Status == "completed" && len(r.Comments(n)) > 0
	}
	for !appDone() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // a close would follow the comment
	runs := r.CheckRuns(head, "pinbot")
	if !appDone() || runs[len(runs)-1].Conclusion != "failure" {
		t.Fatalf("the App did not fail its check and comment: runs %+v", runs)
	}
	appComment := r.Comments(n)[0].Body
	appClosed := r.PRState(n) == "closed"

	// The advisories as `gh api "/advisories?affects=kopf@1.40.1"` prints them.
	resp, err := http.Get(sim.URL() + "/advisories?ecosystem=pip&affects=kopf@1.40.1")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	advisories := writeFile(t, "advisories.json", string(data))
	pr := prJSON(t, "dependabot[bot]", title, "", head)
	cli, code, stderr := evaluate(t, "--repo", r.Dir(), "--base", "main", "--head", branch, "--pr", pr, "--advisories", advisories)
	cliClosed := strings.Contains(cli.Comment, "pinbot closes it")

	if code != 1 || cli.Verdict != "block" {
		t.Errorf("pinbot evaluate: exit %d verdict %s, want 1 block (stderr %s)", code, cli.Verdict, stderr)
	}
	if appClosed || cliClosed {
		t.Errorf("a security update was closed: App closed %v, CLI says it closes %v", appClosed, cliClosed)
	}
	for _, want := range []string{"security update of a pinned dependency", "CVE-2026-41234 (GHSA-4x5v-gmq8-25ch)", "at or above the first patched 1.42.1"} {
		if !strings.Contains(appComment, want) || !strings.Contains(cli.Comment, want) {
			t.Errorf("App and CLI comments do not both say %q:\n--- App\n%s\n--- CLI\n%s", want, appComment, cli.Comment)
		}
	}
	// Without the advisories the CLI has no way to know: it closes, as
	// the App does with advisories off.
	plain, _, _ := evaluate(t, "--repo", r.Dir(), "--base", "main", "--head", branch, "--pr", pr)
	if !strings.Contains(plain.Comment, "pinbot closes it") {
		t.Errorf("without --advisories the bump is not the routine close:\n%s", plain.Comment)
	}
}
