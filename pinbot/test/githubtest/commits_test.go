package githubtest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// TestGetCommitSHA is issue 36, item 4: GET /repos/{o}/{r}/commits/{ref}
// with the sha media type answers the commit a tag (annotated ones peeled),
// a branch or a SHA resolves to in the repository's git, as plain text, and
// 422 "No commit found for SHA" for a ref that names none, as GitHub does;
// the default media type is the commit object.
func TestGetCommitSHA(t *testing.T) {
	sim := githubtest.New(t, githubtest.Options{})
	r := sim.CreateRepo("actions", "checkout", true)
	first := r.Commit("main", "", map[string]string{"action.yml": "name: checkout\n"}, "v4.0.0", githubtest.Author{})
	second := r.Commit("main", "", map[string]string{"action.yml": "name: checkout\nruns: {using: node20}\n"}, "v4.1.0", githubtest.Author{})
	r.Tag("v4.0.0", first, false)
	r.Tag("v4", second, true)
	ctx := context.Background()
	gh := client(t, sim, sim.URL(), sim.PrivateKeyPEM())
	for _, tt := range []struct{ ref, want string }{
		{"v4", second},
		{"v4.0.0", first},
		{"main", second},
		{first, first},
		{first[:12], first},
		{"refs/tags/v4", second},
	} {
		got, _, err := gh.Repositories.GetCommitSHA1(ctx, "actions", "checkout", tt.ref, "")
		if err != nil || got != tt.want {
			t.Errorf("GetCommitSHA1(%q) = %q, %v; want %s", tt.ref, got, err, tt.want)
		}
	}
	for _, ref := range []string{"v9", "main~1", "v4^{tree}", strings.Repeat("0", 40)} {
		_, _, err := gh.Repositories.GetCommitSHA1(ctx, "actions", "checkout", ref, "")
		var er *github.ErrorResponse
		if !errors.As(err, &er) || er.Response.StatusCode != http.StatusUnprocessableEntity || er.Message != "No commit found for SHA: "+ref {
			t.Errorf("GetCommitSHA1(%q): %v; want 422 No commit found for SHA: %s", ref, err, ref)
		}
	}

	// The media type GitHub documents, without a version, as a plain body.
	req, _ := http.NewRequest(http.MethodGet, sim.URL()+"repos/actions/checkout/commits/v4", nil)
	req.Header.Set("Accept", "application/vnd.github.sha")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || string(body) != second || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("Accept: application/vnd.github.sha: %d %q %q; want 200 text/plain %s", res.StatusCode, res.Header.Get("Content-Type"), body, second)
	}

	// The default media type: the commit object.
	c, _, err := gh.Repositories.GetCommit(ctx, "actions", "checkout", "v4", nil)
	if err != nil || c.GetSHA() != second || c.GetCommit().GetMessage() != "v4.1.0" || len(c.Parents) != 1 || c.Parents[0].GetSHA() != first {
		t.Errorf("GetCommit(v4) = %+v, %v; want %s, its message and parent", c, err, second)
	}
}
