package action_test

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/internal/action"
)

const secret = "ghs_0123456789abcdefSECRET"

func full() map[string]string {
	return map[string]string{"GITHUB_EVENT_NAME": "pull_request_target", "GITHUB_EVENT_PATH": "/home/runner/work/_temp/_github_workflow/event.json",
		"GITHUB_API_URL": "https://api.github.com", "GITHUB_REPOSITORY": "acme/gadget-operator", "GITHUB_TOKEN": secret, "GITHUB_RUN_ID": "9"}
}

func TestFromEnv(t *testing.T) {
	t.Parallel()
	e, err := action.FromEnv(func(k string) string { return full()[k] })
	if err != nil {
		t.Fatal(err)
	}
	want := action.Env{EventName: "pull_request_target", EventPath: "/home/runner/work/_temp/_github_workflow/event.json",
		APIURL: "https://api.github.com", Repository: "acme/gadget-operator", Token: secret, RunID: "9"}
	if e != want {
		t.Errorf("FromEnv = %+v, want %+v", e, want)
	}
	for _, tc := range []struct {
		name string
		set  map[string]string
		want []string // every fragment must be in the error
	}{
		{"nothing set", map[string]string{"GITHUB_EVENT_NAME": "", "GITHUB_EVENT_PATH": "", "GITHUB_API_URL": "", "GITHUB_REPOSITORY": "", "GITHUB_TOKEN": ""},
			[]string{"GITHUB_EVENT_NAME is not set", "GITHUB_EVENT_PATH is not set", "GITHUB_API_URL is not set", "GITHUB_REPOSITORY is not set", "GITHUB_TOKEN is not set: give the step `env: GITHUB_TOKEN: ${{ github.token }}`"}},
		{"no token", map[string]string{"GITHUB_TOKEN": ""}, []string{"GITHUB_TOKEN is not set"}},
		{"pull_request", map[string]string{"GITHUB_EVENT_NAME": "pull_request"}, []string{`GITHUB_EVENT_NAME="pull_request"`, "use pull_request_target"}},
		{"push", map[string]string{"GITHUB_EVENT_NAME": "push"}, []string{`GITHUB_EVENT_NAME="push": pinbot action handles pull_request_target, check_suite, workflow_run and schedule`}},
		{"API not http", map[string]string{"GITHUB_API_URL": "ftp://ghes.example/api/v3"}, []string{`GITHUB_API_URL="ftp://ghes.example/api/v3" is not an http(s) API base`}},
		{"API without host", map[string]string{"GITHUB_API_URL": "https://"}, []string{"is not an http(s) API base"}},
		{"repository without owner", map[string]string{"GITHUB_REPOSITORY": "gadget-operator"}, []string{`GITHUB_REPOSITORY="gadget-operator" is not owner/name`}},
		{"repository too deep", map[string]string{"GITHUB_REPOSITORY": "acme/gadget/operator"}, []string{"is not owner/name"}},
		{"repository empty name", map[string]string{"GITHUB_REPOSITORY": "acme/"}, []string{"is not owner/name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := full()
			for k, v := range tc.set {
				env[k] = v
			}
			_, err := action.FromEnv(func(k string) string { return env[k] })
			if err == nil {
				t.Fatalf("no error for %v", tc.set)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the token is in the error: %q", err)
			}
		})
	}
}

// The token is never in an error, whatever else is wrong; and a token set
// in another variable by mistake is not echoed either.
func TestFromEnvNeverEchoesTheToken(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"GITHUB_EVENT_NAME", "GITHUB_API_URL", "GITHUB_REPOSITORY"} {
		env := full()
		env[k] = "x" // malformed beside the token
		_, err := action.FromEnv(func(k string) string { return env[k] })
		if err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("%s malformed: error %v; want one without the token", k, err)
		}
	}
}

// routeCases are the seeds of FuzzRoute and its table: event, payload,
// route or "" with an error fragment.
var routeCases = []struct {
	event, body, route, err string
}{
	{"pull_request_target", `{"action":"opened","repository":{"full_name":"acme/gadget-operator"}}`, "pull_request", ""},
	{"pull_request_target", `{"repository":{"full_name":"ACME/Gadget-Operator"}}`, "pull_request", ""},
	{"check_suite", `{"action":"completed","repository":{"full_name":"acme/gadget-operator"}}`, "check_suite", ""},
	{"workflow_run", `{"action":"completed","repository":{"full_name":"acme/gadget-operator"}}`, "workflow_run", ""},
	{"schedule", `{"schedule":"17 * * * *"}`, "", ""},
	{"schedule", `{"schedule":"17 * * * *","repository":{"full_name":"acme/gadget-operator"}}`, "", ""},
	{"pull_request_target", `{"repository":{"full_name":"evil/other"}}`, "", "it is about evil/other, GITHUB_REPOSITORY is acme/gadget-operator"},
	{"schedule", `{"repository":{"full_name":"evil/other"}}`, "", "it is about evil/other"},
	{"pull_request_target", `{"action":"opened"}`, "", "a pull_request_target payload names its repository"},
	{"check_suite", `null`, "", "names its repository"},
	{"pull_request_target", `[1,2]`, "", "not a JSON object of a webhook payload"},
	{"pull_request_target", `{"repository":"acme/gadget-operator"}`, "", "not a JSON object of a webhook payload"},
	{"pull_request_target", `{`, "", "not a JSON object of a webhook payload"},
	{"push", `{"repository":{"full_name":"acme/gadget-operator"}}`, "", `GITHUB_EVENT_NAME="push" is not an event pinbot action handles`},
}

func TestRoute(t *testing.T) {
	t.Parallel()
	for _, tc := range routeCases {
		e := action.Env{EventName: tc.event, Repository: "acme/gadget-operator"}
		route, err := action.Route(e, []byte(tc.body))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %s: route %q, error %v; want an error saying %q", tc.event, tc.body, route, err, tc.err)
			}
			continue
		}
		if err != nil || route != tc.route {
			t.Errorf("%s %s: route %q, error %v; want %q", tc.event, tc.body, route, err, tc.route)
		}
	}
}

// FuzzRoute: any payload under any event name is routed or refused, never
// a panic; what is routed is about this repository (or names none, on
// schedule only) and takes one of the App's routes.
func FuzzRoute(f *testing.F) {
	for _, tc := range routeCases {
		f.Add(tc.event, tc.body)
	}
	f.Fuzz(func(t *testing.T, event, body string) {
		e := action.Env{EventName: event, Repository: "acme/gadget-operator"}
		route, err := action.Route(e, []byte(body))
		if err != nil {
			if route != "" {
				t.Errorf("refused with a route %q", route)
			}
			return
		}
		want := map[string]string{"pull_request_target": "pull_request", "check_suite": "check_suite", "workflow_run": "workflow_run", "schedule": ""}
		if w, ok := want[event]; !ok || w != route {
			t.Errorf("event %q routed to %q", event, route)
		}
		if route != "" && !strings.Contains(strings.ToLower(body), "acme/gadget-operator") && !strings.Contains(body, `\u`) && !strings.Contains(body, `\/`) {
			t.Errorf("routed %q without naming this repository: %s", route, body)
		}
	})
}
