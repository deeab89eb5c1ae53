// Package action is pinbot's GitHub Action: one workflow event, read from
// the runner's environment, handed to the App's own server in this
// process with the workflow's GITHUB_TOKEN (ADR 0342). It adds no
// decision, read or write of its own: the routing, the jobs, the source,
// enforce, render and report are serve's.
//
// It is safe on pull_request_target by construction (ADR 0342): it never
// checks out or runs the pull request's code (it reads the head through
// the API, as the App does), and the configuration and pins come from the
// base commit the event names, never from the head.
package action

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/kubetenant/kubetenant/pinbot/internal/server"
)

// The events pinbot action handles, and the server route each one takes.
// pull_request_target carries the pull_request payload; workflow_run and
// check_suite are how a finished verification reaches a workflow (GitHub
// sends no check_suite event for GitHub Actions' own suites to
// workflows); schedule runs the upstream check and the dashboard.
var routes = map[string]string{
	"pull_request_target": "pull_request",
	"check_suite":         "check_suite",
	"workflow_run":        "workflow_run",
	"schedule":            "",
}

// Env is what the runner tells the step, from its default environment
// variables (https://docs.github.com/actions/reference/variables-reference).
type Env struct {
	// EventName is GITHUB_EVENT_NAME, EventPath GITHUB_EVENT_PATH (the
	// event's webhook payload, as a file), APIURL GITHUB_API_URL (GitHub
	// Enterprise Server's https://HOST/api/v3 too), Repository
	// GITHUB_REPOSITORY ("owner/name").
	EventName, EventPath, APIURL, Repository string
	// Token is GITHUB_TOKEN: from the environment only, never a flag, and
	// never logged.
	Token string
	// RunID is GITHUB_RUN_ID, to name the event in logs.
	RunID string
}

// FromEnv reads the Env; it fails naming every variable that is missing or
// malformed.
func FromEnv(getenv func(string) string) (Env, error) {
	e := Env{EventName: getenv("GITHUB_EVENT_NAME"), EventPath: getenv("GITHUB_EVENT_PATH"), APIURL: getenv("GITHUB_API_URL"),
		Repository: getenv("GITHUB_REPOSITORY"), Token: getenv("GITHUB_TOKEN"), RunID: getenv("GITHUB_RUN_ID")}
	var errs []error
	for _, v := range []struct{ name, value string }{
		{"GITHUB_EVENT_NAME", e.EventName}, {"GITHUB_EVENT_PATH", e.EventPath}, {"GITHUB_API_URL", e.APIURL}, {"GITHUB_REPOSITORY", e.Repository},
	} {
		if v.value == "" {
			errs = append(errs, fmt.Errorf("%s is not set: pinbot action runs as a step of a GitHub Actions workflow", v.name))
		}
	}
	if e.Token == "" {
		errs = append(errs, errors.New("GITHUB_TOKEN is not set: give the step `env: GITHUB_TOKEN: ${{ github.token }}`"))
	}
	if e.APIURL != "" {
		if u, err := url.Parse(e.APIURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			errs = append(errs, fmt.Errorf("GITHUB_API_URL=%q is not an http(s) API base", e.APIURL))
		}
	}
	if e.Repository != "" {
		if o, n, ok := strings.Cut(e.Repository, "/"); !ok || o == "" || n == "" || strings.Contains(n, "/") {
			errs = append(errs, fmt.Errorf("GITHUB_REPOSITORY=%q is not owner/name", e.Repository))
		}
	}
	if _, ok := routes[e.EventName]; e.EventName != "" && !ok {
		errs = append(errs, fmt.Errorf("GITHUB_EVENT_NAME=%q: pinbot action handles pull_request_target, check_suite, workflow_run and schedule%s", e.EventName, eventHint(e.EventName)))
	}
	return e, errors.Join(errs...)
}

// eventHint says why a likely mistake is refused.
func eventHint(event string) string {
	if event == "pull_request" {
		return " (pull_request gives a pull request from a fork a read-only token, and runs the head's copy of the workflow: use pull_request_target, which runs the base's)"
	}
	return ""
}

// Route checks the event payload body against e and returns the server
// route it takes ("" for schedule). The payload must be a JSON object about
// e's repository when it names one: a runner's event file always does, but
// a step given another file must not act on another repository's event
// with this repository's token.
func Route(e Env, body []byte) (string, error) {
	route, ok := routes[e.EventName]
	if !ok {
		return "", fmt.Errorf("GITHUB_EVENT_NAME=%q is not an event pinbot action handles", e.EventName)
	}
	var ev struct {
		Repository *struct {
			FullName string `json:"full_name"`
		} `json:"repository"`
	}
	if err := json.Unmarshal(body, &ev); err != nil {
		return "", fmt.Errorf("not a JSON object of a webhook payload: %w", err)
	}
	if ev.Repository != nil && ev.Repository.FullName != "" && !strings.EqualFold(ev.Repository.FullName, e.Repository) {
		return "", fmt.Errorf("it is about %s, GITHUB_REPOSITORY is %s", ev.Repository.FullName, e.Repository)
	}
	if route != "" && (ev.Repository == nil || ev.Repository.FullName == "") {
		return "", fmt.Errorf("a %s payload names its repository (repository.full_name); this one does not", e.EventName)
	}
	return route, nil
}

// Outcome is what one run did.
type Outcome struct {
	// Event is the event as routed; Reason says why it made no job.
	Event, Reason string
	Decisions     []server.Decision
}

// Run handles the event of e with a server configured by cfg (its logger,
// transport, dry run and advisories; Run sets the token, the API and turns
// the background loops off). Every job's error is returned, joined.
func Run(ctx context.Context, e Env, cfg server.Config) (Outcome, error) {
	out := Outcome{Event: e.EventName}
	body, err := os.ReadFile(e.EventPath)
	if err != nil {
		return out, fmt.Errorf("reading the event payload (GITHUB_EVENT_PATH): %w", err)
	}
	route, err := Route(e, body)
	if err != nil {
		return out, fmt.Errorf("the event payload %s: %w", e.EventPath, err)
	}
	cfg.Token, cfg.GitHubURL = e.Token, strings.TrimSuffix(e.APIURL, "/")+"/"
	cfg.Workers, cfg.RedeliverEvery, cfg.SweepEvery = 1, 0, 0
	cfg.DashboardInterval = -1 // one run: the dashboard is written at once
	if cfg.UpstreamURL == "" {
		cfg.UpstreamURL = cfg.GitHubURL
	}
	srv, err := server.New(cfg)
	if err != nil {
		return out, err
	}
	defer srv.Close()
	owner, name, _ := strings.Cut(e.Repository, "/")
	if route == "" {
		out.Reason = "scheduled: upstream check and dashboard"
		return out, srv.Scheduled(ctx, owner, name)
	}
	out.Event = route
	out.Decisions, out.Reason, err = srv.Run(ctx, route, e.RunID, body)
	return out, err
}
