package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubetenant/kubetenant/pinbot"
	"github.com/kubetenant/kubetenant/pinbot/internal/register"
)

// Files `pinbot register` writes into --out.
const (
	keyFile    = "private-key.pem"
	secretFile = "webhook-secret"
	valuesFile = "values.yaml"
)

// registerFlags are the flags of pinbot register.
type registerFlags struct {
	org, githubURL, webhookURL, name, out, listen string
	timeout                                       time.Duration
	noBrowser                                     bool
}

func newRegister(e env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "register [--org ORG] [--github-url URL] [--webhook-url URL] [--name NAME] [--out DIR]",
		Short: "Register pinbot as a GitHub App (manifest flow) and write its key, secret and chart values",
		Long: `Registers pinbot as a GitHub App in one step, through GitHub's manifest flow:
it serves a page on 127.0.0.1 (printed, and opened in a browser where it
can) that sends pinbot's manifest (pinbot/app.yml: its permissions and
events) to GitHub's new-App page; you confirm the name on GitHub, GitHub
sends the browser back, and pinbot exchanges the code for the App's id,
private key and webhook secret. It writes into --out:

  private-key.pem   the App's private key (mode 0600)
  webhook-secret    the webhook secret (mode 0600)
  values.yaml       values for charts/pinbot

and prints the kubectl and helm commands that deploy it. Nothing in --out
is overwritten. For GitHub Enterprise Server, pass its API base as
--github-url (https://HOST/api/v3/); the web pages are derived from it.`,
		Args: noArgs,
	}
	var f registerFlags
	fs := cmd.Flags()
	fs.StringVar(&f.org, "org", "", "register the App on this `organization` (default: your personal account)")
	fs.StringVar(&f.githubURL, "github-url", "https://api.github.com/", "GitHub REST API `base`, as for serve; for GitHub Enterprise Server https://HOST/api/v3/")
	fs.StringVar(&f.webhookURL, "webhook-url", "", "`URL` GitHub delivers webhooks to: pinbot's /webhook behind your Ingress (default: none yet; the webhook stays inactive)")
	fs.StringVar(&f.name, "name", "pinbot", "the App's `name`; on github.com names are unique across all Apps, so add your organisation's")
	fs.StringVar(&f.out, "out", ".", "`dir`ectory to write private-key.pem, webhook-secret and values.yaml into (made, 0700, when missing)")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:0", "`address` of the local page GitHub redirects back to; port 0 picks a free one")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "how long to wait for GitHub to send the browser back")
	fs.BoolVar(&f.noBrowser, "no-browser", false, "print the page's address without opening a browser")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return runRegister(cmd.Context(), e, f)
	}
	return cmd
}

func runRegister(ctx context.Context, e env, f registerFlags) error {
	if _, err := register.WebURL(f.githubURL); err != nil {
		return usagef("--github-url: %v", err)
	}
	m := pinbot.AppManifest()
	m.Name = f.name
	if f.webhookURL != "" {
		u, err := url.Parse(f.webhookURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return usagef("--webhook-url %q is not an http(s) URL", f.webhookURL)
		}
		m.HookAttributes.URL = f.webhookURL
	} else {
		// GitHub requires a hook URL; the manifest's placeholder stays,
		// inactive, until pinbot is reachable.
		m.HookAttributes.Active = false
	}
	// --out is made when missing, private to the user as the key will be
	// (0700, as ssh-keygen and gh make their folders), and removed again
	// if the registration fails while it is still empty.
	created := false
	if fi, err := os.Stat(f.out); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(f.out, 0o700); err != nil {
			return usagef("--out: %v", err)
		}
		created = true
	} else if err != nil {
		return usagef("--out: %v", err)
	} else if !fi.IsDir() {
		return usagef("--out %s is not a directory", f.out)
	}
	for _, name := range []string{keyFile, secretFile, valuesFile} {
		p := filepath.Join(f.out, name)
		if _, err := os.Lstat(p); err == nil {
			return usagef("--out: %s exists; pinbot register never overwrites it: choose another --out", p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return usagef("--out: %v", err)
		}
	}

	app, err := register.Run(ctx, register.Options{
		APIURL: f.githubURL, Org: f.org, Manifest: m, Listen: f.listen, Timeout: f.timeout,
		Ready: func(page string) {
			fmt.Fprintf(e.stderr, "pinbot register: open %s in a browser signed in to GitHub to register the App %q.\n", page, f.name)
			if !f.noBrowser {
				openBrowser(page)
			}
		},
	})
	if err != nil {
		if created {
			os.Remove(f.out) // only while empty: nothing was written
		}
		return err
	}

	files := []struct {
		name string
		data string
		mode os.FileMode
	}{
		{keyFile, app.PEM, 0o600},
		{secretFile, app.WebhookSecret + "\n", 0o600},
		{valuesFile, chartValues(app, f.githubURL, f.webhookURL), 0o644},
	}
	for _, w := range files {
		if err := writeNew(filepath.Join(f.out, w.name), w.data, w.mode); err != nil {
			return err
		}
	}
	printNextSteps(e.stdout, app, f)
	return nil
}

// writeNew creates a file that must not exist yet with the given mode.
func writeNew(path, data string, mode os.FileMode) error {
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("writing the App's credentials: %w", err)
	}
	if _, err := io.WriteString(fh, data); err != nil {
		fh.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// secretName is the Secret the printed kubectl command creates and the
// values refer to.
const secretName = "pinbot-github"

// chartValues are the values for charts/pinbot that deploy this App.
func chartValues(app register.App, githubURL, webhookURL string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Values for charts/pinbot, written by `pinbot register` for the GitHub App\n# %q (id %d). The Secret %s holds the key and the webhook secret.\n", app.Name, app.ID, secretName)
	fmt.Fprintf(&b, "github:\n  appID: \"%d\"\n  appSlug: %s\n", app.ID, app.Slug)
	if githubURL != "https://api.github.com/" {
		u := githubURL
		if !strings.HasSuffix(u, "/") {
			u += "/"
		}
		fmt.Fprintf(&b, "  url: %s\n", u)
	}
	fmt.Fprintf(&b, "  existingSecret: %s\n", secretName)
	if u, err := url.Parse(webhookURL); webhookURL != "" && err == nil {
		p := u.Path
		if p == "" {
			p = "/"
		}
		fmt.Fprintf(&b, "# GitHub delivers to %s.\ningress:\n  enabled: true\n  hosts:\n    - host: %s\n      paths:\n        - path: %s\n          pathType: Exact\n", webhookURL, u.Hostname(), p)
	}
	return b.String()
}

func printNextSteps(w io.Writer, app register.App, f registerFlags) {
	p := func(name string) string { return filepath.Join(f.out, name) }
	fmt.Fprintf(w, "Registered the GitHub App %q (id %d, slug %s) for %s.\n\n", app.Name, app.ID, app.Slug, app.Owner)
	fmt.Fprintf(w, "Wrote:\n  %-28s the App's private key (mode 0600)\n  %-28s the webhook secret (mode 0600)\n  %-28s values for charts/pinbot\n\n", p(keyFile), p(secretFile), p(valuesFile))
	fmt.Fprintf(w, "Next:\n")
	fmt.Fprintf(w, "1. Install the App on the repositories to guard:\n   %s\n", app.InstallURL())
	fmt.Fprintf(w, "2. Deploy pinbot:\n")
	fmt.Fprintf(w, "   kubectl create namespace pinbot\n")
	fmt.Fprintf(w, "   kubectl -n pinbot create secret generic %s \\\n     --from-file=%s=%s \\\n     --from-file=%s=%s\n", secretName, keyFile, p(keyFile), secretFile, p(secretFile))
	fmt.Fprintf(w, "   helm install pinbot charts/pinbot --namespace pinbot -f %s\n", p(valuesFile))
	if f.webhookURL == "" {
		fmt.Fprintf(w, "3. The webhook is inactive: once pinbot answers at https://<host>/webhook, set that URL\n   and tick Active in the App's settings (%s), and set ingress.* in %s.\n", strings.TrimSuffix(app.HTMLURL, "/"), p(valuesFile))
	} else {
		fmt.Fprintf(w, "3. GitHub delivers webhooks to %s: the chart's Ingress must route it to pinbot.\n", f.webhookURL)
	}
	fmt.Fprintf(w, "4. Make the pinbot check required in the default branch's protection or ruleset.\n")
}

// openBrowser opens url in the desktop's browser where there is one; the
// address is printed either way.
func openBrowser(url string) {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return
		}
		cmd = exec.Command("xdg-open", url)
	}
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}
