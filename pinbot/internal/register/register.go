// Package register registers pinbot as a GitHub App through GitHub's
// manifest flow
// (https://docs.github.com/apps/sharing-github-apps/registering-a-github-app-from-a-manifest):
// a page served on 127.0.0.1 POSTs the manifest to GitHub's new-App page,
// GitHub redirects the browser back with a code, and the code is exchanged
// for the App's id, private key and webhook secret. It is what Probot does
// on an App's first start, as a command.
package register

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/pinbot/internal/ghclient"

	"github.com/kubetenant/kubetenant/pinbot"
)

// Options configures one registration.
type Options struct {
	// APIURL is the REST API base, as for `pinbot serve --github-url`:
	// https://api.github.com/ or https://HOST/api/v3/. The web pages are
	// derived from it (WebURL).
	APIURL string
	// Org registers the App on this organisation; empty registers it on
	// the signed-in user's account.
	Org string
	// Manifest is sent as is, with its redirect_url pointing back here.
	Manifest pinbot.Manifest
	// Listen is the local address (default 127.0.0.1:0, a free port).
	Listen string
	// Timeout ends the wait for GitHub's redirect (default 10 minutes).
	Timeout time.Duration
	// Client makes the conversion call (default: 30 s timeout).
	Client *http.Client
	// Ready, when set, receives the local page's URL once it is served.
	Ready func(pageURL string)
}

// App is what GitHub returns for a registered App.
type App struct {
	ID            int64
	Slug          string
	Name          string
	HTMLURL       string
	Owner         string
	WebhookSecret string
	PEM           string
}

// InstallURL is the page that installs the App on repositories.
func (a App) InstallURL() string { return strings.TrimSuffix(a.HTMLURL, "/") + "/installations/new" }

// WebURL derives GitHub's web base from a REST API base: api.github.com
// becomes github.com, https://HOST/api/v3/ (GitHub Enterprise Server)
// becomes https://HOST/, any other base is its own web base.
func WebURL(apiURL string) (*url.URL, error) {
	u, err := url.Parse(apiURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http(s) URL", apiURL)
	}
	w := *u
	w.RawQuery, w.Fragment = "", ""
	switch {
	case strings.EqualFold(u.Hostname(), "api.github.com"):
		w.Host, w.Path = "github.com", "/"
	case strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/api/v3"):
		w.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/api/v3") + "/"
	default:
		w.Path = strings.TrimSuffix(u.Path, "/") + "/"
	}
	return &w, nil
}

// FormURL is the new-App page the manifest is POSTed to, for a user or an
// organisation, carrying the state GitHub hands back.
func FormURL(web *url.URL, org, state string) string {
	p := "settings/apps/new"
	if org != "" {
		p = "organizations/" + url.PathEscape(org) + "/settings/apps/new"
	}
	return web.String() + p + "?" + url.Values{"state": {state}}.Encode()
}

// ErrTimeout is returned when GitHub did not redirect back in time.
var ErrTimeout = errors.New("no answer from GitHub in time")

// Run serves the page that starts the manifest flow, waits for GitHub's
// redirect, exchanges the code and returns the App. A redirect whose state
// does not match is refused and the wait goes on; the local server stops
// after one exchange (successful or not), on ctx's end, or after Timeout.
func Run(ctx context.Context, o Options) (App, error) {
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 30 * time.Second}
	}
	api, err := url.Parse(o.APIURL)
	if err != nil {
		return App{}, fmt.Errorf("--github-url: %w", err)
	}
	if !strings.HasSuffix(api.Path, "/") {
		api.Path += "/"
	}
	web, err := WebURL(o.APIURL)
	if err != nil {
		return App{}, fmt.Errorf("--github-url: %w", err)
	}
	state, err := randomHex(16)
	if err != nil {
		return App{}, err
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return App{}, fmt.Errorf("listening on %s: %w", o.Listen, err)
	}
	local := "http://" + ln.Addr().String()
	m := o.Manifest
	m.RedirectURL = local + "/callback"
	manifest, err := json.Marshal(m)
	if err != nil {
		ln.Close()
		return App{}, fmt.Errorf("encoding the manifest: %w", err)
	}
	gh := github.NewClient(o.Client)
	gh.BaseURL = api

	type result struct {
		app App
		err error
	}
	done := make(chan result, 1)
	var once sync.Once
	finish := func(r result) { once.Do(func() { done <- r }) }

	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		startPage.Execute(w, map[string]any{
			"Action": FormURL(web, o.Org, state), "Manifest": string(manifest),
			"Name": m.Name, "Where": where(web, o.Org),
		})
	})
	mux.HandleFunc("GET /callback", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		q := r.URL.Query()
		if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
			w.WriteHeader(http.StatusBadRequest)
			donePage.Execute(w, map[string]any{"Error": "The state of this redirect does not match the registration pinbot started. Start again from " + local + "/"})
			return
		}
		code := q.Get("code")
		if code == "" {
			w.WriteHeader(http.StatusBadRequest)
			donePage.Execute(w, map[string]any{"Error": "GitHub's redirect carries no code."})
			return
		}
		app, err := convert(r.Context(), gh, code)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			donePage.Execute(w, map[string]any{"Error": err.Error()})
			finish(result{err: err})
			return
		}
		donePage.Execute(w, map[string]any{"App": app, "Install": app.InstallURL()})
		finish(result{app: app})
	})
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if o.Ready != nil {
		o.Ready(local + "/")
	}
	timer := time.NewTimer(o.Timeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.app, r.err
	case <-timer.C:
		return App{}, fmt.Errorf("%w: GitHub did not redirect to %s/callback within %s", ErrTimeout, local, o.Timeout)
	case <-ctx.Done():
		return App{}, ctx.Err()
	}
}

// convert exchanges a code for the App (POST /app-manifests/{code}/conversions).
func convert(ctx context.Context, gh *github.Client, code string) (App, error) {
	cfg, err := ghclient.CompleteAppManifest(ctx, gh, code)
	if err != nil {
		return App{}, fmt.Errorf("exchanging the code from GitHub: %w", err)
	}
	app := App{
		ID: cfg.GetID(), Slug: cfg.GetSlug(), Name: cfg.GetName(), HTMLURL: cfg.GetHTMLURL(),
		Owner: cfg.GetOwner().GetLogin(), WebhookSecret: cfg.GetWebhookSecret(), PEM: cfg.GetPEM(),
	}
	if app.ID <= 0 || app.PEM == "" || app.WebhookSecret == "" || app.Slug == "" {
		return App{}, errors.New("exchanging the code from GitHub: the answer lacks the App's id, slug, private key or webhook secret")
	}
	return app, nil
}

func where(web *url.URL, org string) string {
	if org != "" {
		return "the organisation " + org + " on " + web.Host
	}
	return "your account on " + web.Host
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("reading random bytes: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// startPage POSTs the manifest to GitHub as soon as it loads; the button is
// there for browsers without JavaScript.
var startPage = template.Must(template.New("start").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Register {{.Name}}</title></head>
<body>
<p>Registering the GitHub App <b>{{.Name}}</b> on {{.Where}}. GitHub asks you to confirm the name, then sends you back here.</p>
<form id="register" method="post" action="{{.Action}}">
<input type="hidden" name="manifest" value="{{.Manifest}}">
<button type="submit">Register on GitHub</button>
</form>
<script>document.getElementById("register").submit()</script>
</body></html>
`))

var donePage = template.Must(template.New("done").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pinbot register</title></head>
<body>
{{if .Error}}<p>pinbot register failed: {{.Error}}</p>
{{else}}<p>Registered <b>{{.App.Name}}</b> (App id {{.App.ID}}). pinbot wrote its key and webhook secret; see your terminal.</p>
<p>Next, <a href="{{.Install}}">install it on the repositories to guard</a>. You can close this tab.</p>{{end}}
</body></html>
`))
