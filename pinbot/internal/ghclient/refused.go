package ghclient

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v60/github"
)

// PermissionError is a request GitHub refused because the token lacks a
// permission: 403 with X-Accepted-GitHub-Permissions, which GitHub sends
// to App installation tokens, a workflow's GITHUB_TOKEN among them
// (https://docs.github.com/rest/authentication/permissions-required-for-github-apps).
// report and source wrap their errors with Refused. It names what was
// not done and the permission that would do it, so that
// a workflow's log says which `permissions:` line to add (ADR 0344).
type PermissionError struct {
	// What is the request, as "creating pinbot/sync".
	What string
	// Need is GitHub's header: permission sets that would do, each
	// "name=level", separated by "; " ("contents=write").
	Need string
	Err  error
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("%s: GitHub refused it, the token lacks the permission (a workflow job needs `permissions: %s`)", e.What, e.Workflow())
}

func (e *PermissionError) Unwrap() error { return e.Err }

// Workflow is Need as a workflow's permissions block writes it
// ("contents: write"; alternatives joined by " or ").
func (e *PermissionError) Workflow() string {
	var out []string
	for _, set := range strings.Split(e.Need, ";") {
		var perms []string
		for _, p := range strings.Split(set, ",") {
			name, level, ok := strings.Cut(strings.TrimSpace(p), "=")
			if !ok {
				continue
			}
			perms = append(perms, strings.ReplaceAll(name, "_", "-")+": "+level)
		}
		if len(perms) > 0 {
			out = append(out, strings.Join(perms, ", "))
		}
	}
	if len(out) == 0 {
		return "(GitHub named none)"
	}
	return strings.Join(out, " or ")
}

// Refused wraps the error of the request what: a refusal for a missing
// permission becomes a *PermissionError, anything else is wrapped as is.
func Refused(what string, resp *github.Response, err error) error {
	var ge *github.ErrorResponse
	if resp != nil && resp.StatusCode == http.StatusForbidden && errors.As(err, &ge) {
		if need := resp.Header.Get("X-Accepted-GitHub-Permissions"); need != "" {
			return &PermissionError{What: what, Need: need, Err: err}
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}
