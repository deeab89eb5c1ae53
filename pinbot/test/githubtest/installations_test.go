package githubtest_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// TestInstallationsEndpoints: the App lists its installations with its JWT
// (401 with an installation token), and an installation lists its
// repositories, paginated and wrapped as on GitHub; an uninstalled
// repository is not listed.
func TestInstallationsEndpoints(t *testing.T) {
	ctx := context.Background()
	sim := githubtest.New(t, githubtest.Options{})
	for _, name := range []string{"alpha", "beta", "gamma"} {
		sim.CreateRepo("acme", name, false).Commit("main", "", map[string]string{"README.md": name + "\n"}, "Initial", githubtest.Author{})
	}
	sim.Repo("acme", "gamma").Uninstall()

	atr, err := ghinstallation.NewAppsTransport(http.DefaultTransport, sim.App().ID, sim.PrivateKeyPEM())
	if err != nil {
		t.Fatal(err)
	}
	atr.BaseURL = strings.TrimSuffix(sim.URL(), "/")
	app := github.NewClient(&http.Client{Transport: atr})
	app.BaseURL = mustURL(t, sim.URL())
	ins, _, err := app.Apps.ListInstallations(ctx, nil)
	if err != nil || len(ins) != 1 || ins[0].GetID() != sim.InstallationID() || ins[0].GetAccount().GetLogin() != "acme" || ins[0].GetAppID() != sim.App().ID {
		t.Fatalf("installations: %+v %v", ins, err)
	}

	gh := client(t, sim, sim.URL(), sim.PrivateKeyPEM())
	if _, _, err := gh.Apps.ListInstallations(ctx, nil); status(err) != http.StatusUnauthorized {
		t.Errorf("installations with an installation token: %v, want 401", err)
	}
	var names []string
	opts := &github.ListOptions{PerPage: 1}
	for {
		repos, resp, err := gh.Apps.ListRepos(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		if repos.GetTotalCount() != 2 {
			t.Errorf("total_count %d, want 2", repos.GetTotalCount())
		}
		for _, r := range repos.Repositories {
			names = append(names, r.GetFullName())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if strings.Join(names, ",") != "acme/alpha,acme/beta" {
		t.Errorf("repositories %v, want acme/alpha and acme/beta, one a page", names)
	}
	anon := github.NewClient(nil)
	anon.BaseURL = mustURL(t, sim.URL())
	if _, _, err := anon.Apps.ListRepos(ctx, nil); status(err) != http.StatusUnauthorized {
		t.Errorf("repositories without a token: %v, want 401", err)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
