package main

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/pinbot"
	"github.com/kubetenant/kubetenant/pinbot/test/githubtest"
)

// syncBuffer is a bytes.Buffer safe to read while pinbot writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// registering is `pinbot register` running in-process.
type registering struct {
	stdout, stderr *syncBuffer
	done           chan int
	page           string
}

func startRegister(t *testing.T, args ...string) *registering {
	t.Helper()
	r := &registering{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan int, 1)}
	go func() {
		r.done <- run(context.Background(), append([]string{"register", "--no-browser"}, args...), env{stdout: r.stdout, stderr: r.stderr, getenv: func(string) string { return "" }})
	}()
	re := regexp.MustCompile(`open (http://127\.0\.0\.1:\d+/) in a browser`)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(r.stderr.String()); m != nil {
			r.page = m[1]
			return r
		}
		select {
		case code := <-r.done:
			t.Fatalf("pinbot register ended with %d before serving its page:\n%s", code, r.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("pinbot register printed no page address:\n%s", r.stderr.String())
	return nil
}

func (r *registering) wait(t *testing.T) int {
	t.Helper()
	select {
	case code := <-r.done:
		return code
	case <-time.After(30 * time.Second):
		t.Fatal("pinbot register did not end")
		return 0
	}
}

var formRE = regexp.MustCompile(`(?s)<form id="register" method="post" action="([^"]+)">\s*<input type="hidden" name="manifest" value="([^"]*)">`)

// browse is the browser: it loads the local page and submits its form to
// GitHub (the simulator), following GitHub's redirect back to pinbot.
func browse(t *testing.T, page string) (action string, manifest pinbot.Manifest, final *http.Response, body string) {
	t.Helper()
	resp, err := http.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := formRE.FindStringSubmatch(string(b))
	if m == nil {
		t.Fatalf("the local page has no manifest form:\n%s", b)
	}
	action = html.UnescapeString(m[1])
	raw := html.UnescapeString(m[2])
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&manifest); err != nil {
		t.Fatalf("the manifest is not GitHub's JSON: %v\n%s", err, raw)
	}
	final, err = http.PostForm(action, url.Values{"manifest": {raw}})
	if err != nil {
		t.Fatal(err)
	}
	fb, _ := io.ReadAll(final.Body)
	final.Body.Close()
	return action, manifest, final, string(fb)
}

// TestRegister drives `pinbot register` end to end against the simulator,
// on GitHub Enterprise Server's URL layout, for an organisation: the page,
// the form POSTed to GitHub's new-App page, the redirect with code and
// state, the conversion, the files and the printed commands.
func TestRegister(t *testing.T) {
	sim := githubtest.New(t, githubtest.Options{})
	out := t.TempDir()
	r := startRegister(t, "--github-url", sim.EnterpriseURL(), "--org", "acme", "--name", "pinbot-acme",
		"--webhook-url", "https://pinbot.acme.example/webhook", "--out", out)

	// A redirect that does not carry the registration's state is refused
	// and the registration goes on.
	resp, err := http.Get(r.page + "callback?code=stolen&state=guess")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("callback with a wrong state: %d, want 400", resp.StatusCode)
	}

	action, manifest, final, body := browse(t, r.page)
	web := strings.TrimSuffix(sim.EnterpriseURL(), "api/v3/")
	if !strings.HasPrefix(action, web+"organizations/acme/settings/apps/new?state=") || len(action) < len(web)+60 {
		t.Errorf("form action %q: want the organisation's new-App page on %s with a state", action, web)
	}
	want := pinbot.AppManifest()
	want.Name, want.HookAttributes.URL, want.RedirectURL = "pinbot-acme", "https://pinbot.acme.example/webhook", r.page+"callback"
	if diff := cmp.Diff(want, manifest); diff != "" {
		t.Errorf("manifest sent (-want +got):\n%s", diff)
	}
	if final.StatusCode != http.StatusOK || !strings.Contains(body, "Registered <b>pinbot-acme</b> (App id 4242)") {
		t.Errorf("final page %d:\n%s", final.StatusCode, body)
	}
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, r.stderr.String())
	}

	check := func(name, want string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(out, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want {
			t.Errorf("%s:\n%s\nwant:\n%s", name, b, want)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v", name, fi.Mode().Perm(), mode)
		}
	}
	check("private-key.pem", string(sim.PrivateKeyPEM()), 0o600)
	check("webhook-secret", sim.WebhookSecret()+"\n", 0o600)
	// The values file, with the simulator's address as a GHES host, is the
	// chart's ci/register-values.yaml scenario, which the chart tests
	// render and validate against the API server.
	golden, err := os.ReadFile("../../../charts/pinbot/ci/register-values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	values, _ := os.ReadFile(filepath.Join(out, "values.yaml"))
	got := strings.ReplaceAll(string(values), sim.EnterpriseURL(), "https://ghe.acme.example/api/v3/")
	if diff := cmp.Diff(string(golden), "# Scenario: the values `pinbot register` writes (cmd/pinbot TestRegister).\n"+got); diff != "" {
		t.Errorf("values.yaml against charts/pinbot/ci/register-values.yaml (-want +got):\n%s", diff)
	}
	if fi, _ := os.Stat(filepath.Join(out, "values.yaml")); fi.Mode().Perm() != 0o644 {
		t.Errorf("values.yaml mode %v", fi.Mode().Perm())
	}

	stdout := r.stdout.String()
	for _, want := range []string{
		`Registered the GitHub App "pinbot-acme" (id 4242, slug pinbot-acme) for acme.`,
		"1. Install the App on the repositories to guard:\n   " + web + "apps/pinbot-acme/installations/new\n",
		"kubectl -n pinbot create secret generic pinbot-github \\\n     --from-file=private-key.pem=" + filepath.Join(out, "private-key.pem") + " \\\n     --from-file=webhook-secret=" + filepath.Join(out, "webhook-secret") + "\n",
		"helm install pinbot charts/pinbot --namespace pinbot -f " + filepath.Join(out, "values.yaml") + "\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}

	// The page's server has stopped after the one success.
	if _, err := http.Get(r.page); err == nil {
		t.Error("the local page still answers after the registration")
	}
	// And nothing in --out is overwritten by a second run.
	code, _, stderr := cli(t, "register", "--no-browser", "--out", out)
	if code != 3 || !strings.Contains(stderr, "private-key.pem exists; pinbot register never overwrites it") {
		t.Errorf("second run into the same --out: exit %d, %q", code, stderr)
	}
}

// TestRegisterFormURL: without --org the form goes to the user's
// new-App page; github.com's API base gives github.com's web pages. An --out
// that does not exist yet is made, private to the user (0700).
func TestRegisterFormURL(t *testing.T) {
	sim := githubtest.New(t, githubtest.Options{})
	out := filepath.Join(t.TempDir(), "apps", "pinbot-app")
	r := startRegister(t, "--github-url", sim.URL(), "--out", out)
	if fi, err := os.Stat(out); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("--out %s was not made as a 0700 folder: %v, %v", out, fi, err)
	}
	action, manifest, _, _ := browse(t, r.page)
	if !strings.HasPrefix(action, sim.URL()+"settings/apps/new?state=") {
		t.Errorf("form action %q: want the user's new-App page", action)
	}
	if manifest.HookAttributes.Active || manifest.Name != "pinbot" {
		t.Errorf("without --webhook-url the hook is inactive and the name pinbot: %+v", manifest)
	}
	if code := r.wait(t); code != 0 || !strings.Contains(r.stdout.String(), "The webhook is inactive") {
		t.Errorf("exit %d:\n%s%s", code, r.stdout.String(), r.stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "private-key.pem")); err != nil {
		t.Errorf("the key was not written into the new --out: %v", err)
	}
}

// TestRegisterFailures: a code GitHub does not know ends the registration
// with exit 3 and the reason; no answer in time too; bad flags are usage
// errors before anything is served.
func TestRegisterFailures(t *testing.T) {
	sim := githubtest.New(t, githubtest.Options{})
	out := t.TempDir()
	r := startRegister(t, "--github-url", sim.URL(), "--out", out)
	state := regexp.MustCompile(`state=([0-9a-f]+)`)
	resp, err := http.Get(r.page)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	st := state.FindStringSubmatch(string(b))
	resp, err = http.Get(r.page + "callback?code=unknown&state=" + st[1])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if code := r.wait(t); code != 3 || resp.StatusCode != http.StatusBadGateway ||
		!strings.Contains(r.stderr.String(), "pinbot register: exchanging the code from GitHub: POST "+sim.URL()+"app-manifests/unknown/conversions: 404") {
		t.Errorf("unknown code: exit %d, page %d, stderr %q", code, resp.StatusCode, r.stderr.String())
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a failed registration wrote %d files", len(entries))
	}

	// A folder made for a registration that fails is removed again.
	fresh := filepath.Join(out, "fresh")
	r = startRegister(t, "--github-url", sim.URL(), "--out", fresh, "--timeout", "300ms")
	if code := r.wait(t); code != 3 || !strings.Contains(r.stderr.String(), "no answer from GitHub in time: GitHub did not redirect to") {
		t.Errorf("timeout: exit %d, %q", code, r.stderr.String())
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("the --out made for a failed registration is still there: %v", err)
	}
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--github-url", "ftp://x/"}, `pinbot register: --github-url: "ftp://x/" is not an http(s) URL`},
		{[]string{"--webhook-url", "pinbot.example.com/webhook"}, `--webhook-url "pinbot.example.com/webhook" is not an http(s) URL`},
		{[]string{"--out", file}, "--out " + file + " is not a directory"},
		{[]string{"--out", filepath.Join(file, "below")}, "--out: "},
	} {
		code, _, stderr := cli(t, append([]string{"register", "--no-browser"}, tt.args...)...)
		if code != 3 || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "Run 'pinbot register --help' for usage.") {
			t.Errorf("%v: exit %d, %q; want 3 and %q", tt.args, code, stderr, tt.want)
		}
	}
}
