package register

import (
	"net/url"
	"testing"
)

func TestWebURL(t *testing.T) {
	tests := []struct{ api, web, form, orgForm string }{
		{"https://api.github.com/", "https://github.com/", "https://github.com/settings/apps/new?state=s", "https://github.com/organizations/acme/settings/apps/new?state=s"},
		{"https://api.github.com", "https://github.com/", "https://github.com/settings/apps/new?state=s", "https://github.com/organizations/acme/settings/apps/new?state=s"},
		{"https://ghe.example.com/api/v3/", "https://ghe.example.com/", "https://ghe.example.com/settings/apps/new?state=s", "https://ghe.example.com/organizations/acme/settings/apps/new?state=s"},
		{"https://ghe.example.com/api/v3", "https://ghe.example.com/", "https://ghe.example.com/settings/apps/new?state=s", "https://ghe.example.com/organizations/acme/settings/apps/new?state=s"},
		{"http://127.0.0.1:4000/", "http://127.0.0.1:4000/", "http://127.0.0.1:4000/settings/apps/new?state=s", "http://127.0.0.1:4000/organizations/acme/settings/apps/new?state=s"},
	}
	for _, tt := range tests {
		w, err := WebURL(tt.api)
		if err != nil {
			t.Fatalf("WebURL(%q): %v", tt.api, err)
		}
		if w.String() != tt.web {
			t.Errorf("WebURL(%q) = %q, want %q", tt.api, w, tt.web)
		}
		if got := FormURL(w, "", "s"); got != tt.form {
			t.Errorf("FormURL(%q, user) = %q, want %q", tt.api, got, tt.form)
		}
		if got := FormURL(w, "acme", "s"); got != tt.orgForm {
			t.Errorf("FormURL(%q, acme) = %q, want %q", tt.api, got, tt.orgForm)
		}
	}
	for _, bad := range []string{"", "ghe.example.com/api/v3/", "ftp://x/", "https://"} {
		if _, err := WebURL(bad); err == nil {
			t.Errorf("WebURL(%q): no error", bad)
		}
	}
	if got := FormURL(&url.URL{Scheme: "https", Host: "github.com", Path: "/"}, "a b", "s"); got != "https://github.com/organizations/a%20b/settings/apps/new?state=s" {
		t.Errorf("organisation not escaped: %q", got)
	}
}
