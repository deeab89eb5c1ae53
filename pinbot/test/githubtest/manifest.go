package githubtest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// The manifest flow
// (https://docs.github.com/apps/sharing-github-apps/registering-a-github-app-from-a-manifest):
// a form POSTs the manifest as JSON to the web page /settings/apps/new (or
// /organizations/ORG/settings/apps/new, GitHub Enterprise Server alike);
// once the user confirms, GitHub redirects to the manifest's redirect_url
// with a one-hour code and the state given to the page, and the code is
// exchanged for the App's id, key and secrets with POST
// /app-manifests/{code}/conversions. The simulator models one App: the
// conversion answers with its id and key, so that a registered pinbot can
// then serve against the same simulator.

// registration is a manifest waiting for its code's conversion.
type registration struct {
	manifest appManifest
	owner    User
	created  time.Time
}

// appManifest is the part of a manifest GitHub validates.
type appManifest struct {
	Name           string `json:"name"`
	URL            string `json:"url"`
	Description    string `json:"description"`
	HookAttributes struct {
		URL    string `json:"url"`
		Active *bool  `json:"active"`
	} `json:"hook_attributes"`
	RedirectURL        string            `json:"redirect_url"`
	Public             bool              `json:"public"`
	DefaultPermissions map[string]string `json:"default_permissions"`
	DefaultEvents      []string          `json:"default_events"`
}

// eventPermissions are the permissions GitHub requires to subscribe to an
// event (any one suffices), for the events the simulator knows.
var eventPermissions = map[string][]string{
	"pull_request": {"pull_requests"}, "check_run": {"checks"}, "check_suite": {"checks"},
	"issue_comment": {"issues", "pull_requests"}, "push": {"contents"}, "issues": {"issues"},
	"status": {"statuses"},
}

// Registrant is the simulator's signed-in user, who owns the Apps
// registered on a personal account.
var Registrant = User{Login: "octocat", ID: 583231, Type: "User"}

// newAppForm answers the form POST of the manifest flow: it validates the
// manifest as GitHub does and, as if the user confirmed at once, redirects
// to its redirect_url with a code and the state.
func (s *Server) newAppForm(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "the manifest flow POSTs a form with a manifest field", http.StatusMethodNotAllowed)
		return
	}
	var m appManifest
	if err := json.Unmarshal([]byte(r.PostFormValue("manifest")), &m); err != nil {
		http.Error(w, "Invalid GitHub App manifest: "+err.Error(), http.StatusUnprocessableEntity)
		return
	}
	if msg := validateManifest(m); msg != "" {
		http.Error(w, "Invalid GitHub App manifest: "+msg, http.StatusUnprocessableEntity)
		return
	}
	owner := Registrant
	if org := r.PathValue("org"); org != "" {
		owner = User{Login: org, ID: 9919, Type: "Organization"}
	}
	b := make([]byte, 10)
	rand.Read(b)
	code := hex.EncodeToString(b)
	s.mu.Lock()
	if s.registrations == nil {
		s.registrations = map[string]*registration{}
	}
	s.registrations[code] = &registration{manifest: m, owner: owner, created: time.Now()}
	s.mu.Unlock()
	q := url.Values{"code": {code}}
	if st := r.URL.Query().Get("state"); st != "" {
		q.Set("state", st)
	}
	sep := "?"
	if strings.Contains(m.RedirectURL, "?") {
		sep = "&"
	}
	http.Redirect(w, r, m.RedirectURL+sep+q.Encode(), http.StatusFound)
}

var appNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 ._-]*$`)

// validateManifest returns what GitHub would refuse in m, or "".
func validateManifest(m appManifest) string {
	switch {
	case m.Name == "" || len(m.Name) > 34 || !appNameRE.MatchString(m.Name):
		return fmt.Sprintf("name %q: 1 to 34 letters, digits, spaces, dots, dashes or underscores", m.Name)
	case m.URL == "":
		return "url is required"
	case m.HookAttributes.URL == "":
		return "hook_attributes.url is required"
	case m.RedirectURL == "":
		return "redirect_url is required for the manifest flow"
	}
	for _, u := range []string{m.URL, m.HookAttributes.URL, m.RedirectURL} {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Sprintf("%q is not an http(s) URL", u)
		}
	}
	for p, level := range m.DefaultPermissions {
		if level != "read" && level != "write" {
			return fmt.Sprintf("default_permissions.%s: %q, want read or write", p, level)
		}
	}
	for _, ev := range m.DefaultEvents {
		perms, ok := eventPermissions[ev]
		if !ok {
			return fmt.Sprintf("default_events: unknown event %q", ev)
		}
		granted := false
		for _, p := range perms {
			granted = granted || m.DefaultPermissions[p] != ""
		}
		if !granted {
			return fmt.Sprintf("default_events: %q needs one of the permissions %v", ev, perms)
		}
	}
	return ""
}

// conversion answers POST /app-manifests/{code}/conversions: 201 with the
// App, its key and secrets, once per code within an hour of the redirect;
// 404 otherwise. It needs no authentication.
func (s *Server) conversion(c *call) {
	code := c.r.PathValue("code")
	s.mu.Lock()
	reg := s.registrations[code]
	delete(s.registrations, code)
	s.mu.Unlock()
	if reg == nil || time.Since(reg.created) > time.Hour {
		c.fail(http.StatusNotFound, "Not Found")
		return
	}
	m := reg.manifest
	slug := strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(m.Name), "-"), "-")
	b := make([]byte, 20)
	rand.Read(b)
	clientSecret := hex.EncodeToString(b)
	now := ts(time.Now())
	web := strings.TrimSuffix(strings.TrimSuffix(c.base, "api/v3/"), "/")
	events := m.DefaultEvents
	if events == nil {
		events = []string{}
	}
	c.json(http.StatusCreated, obj{
		"id": s.opts.AppID, "slug": slug, "node_id": nodeID("Integration", s.opts.AppID),
		"owner": s.userJSON(c.base, reg.owner), "name": m.Name, "description": m.Description,
		"external_url": m.URL, "html_url": web + "/apps/" + slug,
		"created_at": now, "updated_at": now,
		"permissions": m.DefaultPermissions, "events": events,
		"client_id": "Iv1." + clientSecret[:16], "client_secret": clientSecret,
		"webhook_secret": s.opts.WebhookSecret, "pem": string(s.PrivateKeyPEM()),
	})
}
