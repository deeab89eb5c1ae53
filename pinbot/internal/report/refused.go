package report

import (
	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/pinbot/internal/ghclient"
)

// failed wraps the error of the write what; a refusal for a missing
// permission becomes a *ghclient.PermissionError naming it (ADR 0344).
func failed(what string, resp *github.Response, err error) error {
	return ghclient.Refused(what, resp, err)
}
