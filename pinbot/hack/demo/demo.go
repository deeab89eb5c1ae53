// Command demo is pinbot's part of `make run`: it starts the in-repository
// GitHub simulator with a sample repository (an ADR pinning kopf, a
// Dependabot bump of kopf, a second Dependabot bump of an unpinned
// package), starts `pinbot serve` (the real binary) against it, delivers
// the webhooks GitHub would send, prints what pinbot did and how to run
// `pinbot evaluate` on the same repository, then keeps running until
// Ctrl-C or SIGTERM.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// Options configures one demo run.
type Options struct {
	// Pinbot is the pinbot binary to run as `pinbot serve`.
	Pinbot string
	// Out receives the account of what happened.
	Out io.Writer
	// Ready, when set, is called once everything has been printed.
	Ready func(Result)
}

// Result is what the demo left on the simulator, for its test.
type Result struct {
	Pinned, Unpinned  PR
	RepoDir, Evaluate string
}

// PR is one pull request's state after pinbot handled it.
type PR struct {
	Number                int
	State                 string
	Check, CheckTitle     string
	Comments              []string
	Branch, Title, Author string
}

// sampleADR pins kopf and names the upstream issue, as the team in the
// README's story did.
const sampleADR = `---
status: accepted
date: 2026-11-20
pins:
  - ecosystem: pip
    package: kopf
    version: 1.40.1
    upstream: [nolar/kopf#1172]
---

# 83: Hard pin kopf to 1.40.1 due to a memory leak

## Context

kopf 1.42 grew our operator from 160 MiB to 6 GiB in ninety seconds.

## Decision

Keep kopf at 1.40.1. Close bot pull requests that bump it unless memory
verification passed.
`

// Run runs the demo until ctx ends.
func Run(ctx context.Context, o Options) (err error) {
	tb := &programTB{}
	defer tb.cleanup()
	defer func() {
		if f, ok := recover().(fatal); ok {
			err = errors.New(string(f))
		} else if tb.err != nil && err == nil {
			err = tb.err
		}
	}()
	out := o.Out
	fmt.Fprintln(out, "==> pinbot: starting the GitHub simulator (pinbot/test/githubtest) with acme/widget-operator")
	sim := githubtest.New(tb, githubtest.Options{})
	sim.CreateRepo("nolar", "kopf", true).AddIssue(1172, "Memory leak since 1.42", "open", time.Time{})
	r := sim.CreateRepo("acme", "widget-operator", false)
	r.Commit("main", "", map[string]string{
		"requirements.txt":                "kopf==1.40.1\nhttpx==0.27.0\n",
		"adr/0083-hard-pin-kopf.md":       sampleADR,
		"src/widget_operator/handlers.py": "import kopf\n",
	}, "Initial widget operator", githubtest.Author{})

	bump := func(pkg, from, to string) (int, githubtest.Delivery, string) {
		branch := "dependabot/pip/" + pkg + "-" + to
		r.Commit(branch, "main", map[string]string{"requirements.txt": strings.Replace("kopf==1.40.1\nhttpx==0.27.0\n", pkg+"=="+from, pkg+"=="+to, 1)},
			fmt.Sprintf("Bump %s from %s to %s\n\n---\nupdated-dependencies:\n- dependency-name: %s\n  dependency-version: %s\n  dependency-type: direct:production\n...\n\nSigned-off-by: dependabot[bot] <support@github.com>\n", pkg, from, to, pkg, to),
			githubtest.Dependabot)
		title := fmt.Sprintf("Bump %s from %s to %s", pkg, from, to)
		n, d := r.OpenPR(githubtest.PROptions{Head: branch, Title: title, User: githubtest.DependabotUser})
		return n, d, branch
	}
	kopfPR, kopfOpened, kopfBranch := bump("kopf", "1.40.1", "1.42.0")
	httpxPR, httpxOpened, httpxBranch := bump("httpx", "0.27.0", "0.28.1")

	// pinbot serve, the real binary, with the simulator's App key.
	dir := tb.TempDir()
	key := filepath.Join(dir, "private-key.pem")
	if err := os.WriteFile(key, sim.PrivateKeyPEM(), 0o600); err != nil {
		return err
	}
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	var logs lockedBuffer
	serveCtx, stopServe := context.WithCancel(context.Background())
	cmd := exec.CommandContext(serveCtx, o.Pinbot, "serve", "--listen", addr, "--app-id", fmt.Sprint(sim.App().ID),
		"--private-key-file", key, "--github-url", sim.URL(), "--upstream-github-url", sim.URL())
	cmd.Env = append(os.Environ(), "PINBOT_WEBHOOK_SECRET="+sim.WebhookSecret())
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	fmt.Fprintf(out, "==> pinbot: %s serve --listen %s --github-url %s --upstream-github-url %[3]s (App %d)\n", o.Pinbot, addr, sim.URL(), sim.App().ID)
	if err := cmd.Start(); err != nil {
		stopServe()
		return fmt.Errorf("starting %s: %w", o.Pinbot, err)
	}
	defer func() {
		stopServe()
		cmd.Wait()
	}()
	base := "http://" + addr
	if err := waitHealthy(ctx, base+"/readyz"); err != nil {
		return fmt.Errorf("pinbot serve did not become ready: %w\n%s", err, logs.String())
	}

	// The deliveries GitHub would send: both PRs opened, then Actions'
	// suite completes without a memory-verification run; then the
	// deliveries pinbot's own writes cause.
	deliver := func(ds ...githubtest.Delivery) error {
		for _, d := range ds {
			if code, err := sim.Deliver(ctx, base+"/webhook", d); err != nil || code != http.StatusAccepted {
				return fmt.Errorf("delivering %s: %d %v", d.Event, code, err)
			}
		}
		return nil
	}
	fmt.Fprintf(out, "==> pinbot: delivering pull_request opened (#%d kopf, #%d httpx) and check_suite completed\n", kopfPR, httpxPR)
	if err := deliver(kopfOpened, httpxOpened,
		r.CompleteSuite(r.HeadSHA(kopfPR), githubtest.GitHubActions, "success"),
		r.CompleteSuite(r.HeadSHA(httpxPR), githubtest.GitHubActions, "success")); err != nil {
		return err
	}
	done := func() bool {
		k := r.CheckRuns(r.HeadSHA(kopfPR), "pinbot")
		h := r.CheckRuns(r.HeadSHA(httpxPR), "pinbot")
		return r.PRState(kopfPR) == "closed" && len(k) > 0 && k[len(k)-1].Status == "completed" &&
			len(h) > 0 && h[len(h)-1].Status == "completed"
	}
	for deadline := time.Now().Add(2 * time.Minute); !done(); {
		if time.Now().After(deadline) {
			return fmt.Errorf("pinbot did not decide both pull requests within 2 minutes; its log:\n%s", logs.String())
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err := deliver(sim.Deliveries()...); err != nil {
		return err
	}

	state := func(n int, branch, title string) PR {
		p := PR{Number: n, State: r.PRState(n), Branch: branch, Title: title, Author: githubtest.DependabotUser.Login}
		if runs := r.CheckRuns(r.HeadSHA(n), "pinbot"); len(runs) > 0 {
			last := runs[len(runs)-1]
			p.Check, p.CheckTitle = last.Conclusion, last.Title
		}
		for _, c := range r.Comments(n) {
			p.Comments = append(p.Comments, c.Body)
		}
		return p
	}
	res := Result{
		Pinned:   state(kopfPR, kopfBranch, "Bump kopf from 1.40.1 to 1.42.0"),
		Unpinned: state(httpxPR, httpxBranch, "Bump httpx from 0.27.0 to 0.28.1"),
		RepoDir:  r.Dir(),
	}
	res.Evaluate = fmt.Sprintf("%s evaluate --repo %s --base main --head %s", o.Pinbot, r.Dir(), kopfBranch)
	printResult(out, r.FullName(), res)
	if o.Ready != nil {
		o.Ready(res)
	}
	<-ctx.Done()
	fmt.Fprintln(out, "==> pinbot: stopping pinbot serve and the simulator")
	return nil
}

func printResult(w io.Writer, repo string, res Result) {
	for _, p := range []PR{res.Pinned, res.Unpinned} {
		fmt.Fprintf(w, "\n%s#%d %q by %s (%s)\n", repo, p.Number, p.Title, p.Author, p.Branch)
		fmt.Fprintf(w, "  check run pinbot: %s: %s\n", p.Check, p.CheckTitle)
		fmt.Fprintf(w, "  pull request:     %s\n", p.State)
		if len(p.Comments) == 0 {
			fmt.Fprintf(w, "  comments:         none\n")
		}
		for _, c := range p.Comments {
			fmt.Fprintf(w, "  comment by pinbot[bot]:\n")
			for _, line := range strings.Split(strings.TrimSpace(c), "\n") {
				fmt.Fprintf(w, "    | %s\n", line)
			}
		}
	}
	fmt.Fprintf(w, "\nThe same decision offline, from the simulator's git repository (exit status 1: block):\n  %s\n", res.Evaluate)
	fmt.Fprintf(w, "Ctrl-C stops pinbot, the simulator and the cluster.\n\n")
}

func waitHealthy(ctx context.Context, url string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("GET %s: %v", url, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// programTB lets the simulator, written for tests, run in a program:
// temporary folders and clean-ups are its own, a fatal error ends Run.
type programTB struct {
	mu       sync.Mutex
	cleanups []func()
	err      error
}

type fatal string

func (t *programTB) Helper() {}

func (t *programTB) TempDir() string {
	d, err := os.MkdirTemp("", "pinbot-demo-")
	if err != nil {
		panic(fatal(err.Error()))
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func (t *programTB) Cleanup(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, f)
}

func (t *programTB) Errorf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.err = errors.Join(t.err, fmt.Errorf(format, args...))
}

func (t *programTB) Fatalf(format string, args ...any) { panic(fatal(fmt.Sprintf(format, args...))) }

func (t *programTB) cleanup() {
	t.mu.Lock()
	fs := t.cleanups
	t.cleanups = nil
	t.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// lockedBuffer collects pinbot's log for an error message.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
