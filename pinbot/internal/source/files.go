package source

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
)

// PullRequestFile is what a pull request's JSON (a `gh api` file or a
// webhook's pull_request object) says, as the command line uses it: the
// pull request and the repository it targets.
type PullRequestFile struct {
	PR PullRequest
	// Owner and Name of the base repository, and its HTML URL, "" when the
	// file does not say.
	Owner, Name, HTMLURL string
}

// DecodePullRequest reads GitHub's pull request JSON from r. Data after
// the first value is an error: the file is one object.
func DecodePullRequest(r io.Reader) (PullRequestFile, error) {
	var pr github.PullRequest
	if err := decodeOne(r, &pr); err != nil {
		return PullRequestFile{}, err
	}
	out := PullRequestFile{PR: FromGitHub(&pr)}
	if repo := pr.GetBase().GetRepo(); repo != nil {
		out.Owner, out.Name, out.HTMLURL = repo.GetOwner().GetLogin(), repo.GetName(), repo.GetHTMLURL()
	}
	return out, nil
}

// DecodeCheckRuns reads the JSON of GET /repos/{owner}/{repo}/commits/{ref}/check-runs
// from r.
func DecodeCheckRuns(r io.Reader) ([]enforce.Check, error) {
	var res github.ListCheckRunsResults
	if err := decodeOne(r, &res); err != nil {
		return nil, err
	}
	return RunsFromGitHub(&res), nil
}

// decodeOne decodes exactly one JSON value from r.
func decodeOne(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decoding JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("decoding JSON: data after the first value")
	}
	return nil
}
