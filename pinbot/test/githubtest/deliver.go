package githubtest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
)

// Delivery is one webhook delivery: the event name, its delivery id (a
// GUID, stable across redeliveries) and the JSON body.
type Delivery struct {
	Event string
	ID    string
	Body  []byte
}

// delivery builds a Delivery; s.mu must be held.
func (s *Server) delivery(event string, payload obj) Delivery {
	s.seq++
	payload["installation"] = obj{"id": s.opts.InstallationID, "node_id": nodeID("Installation", s.opts.InstallationID)}
	body, err := json.Marshal(arrays(payload))
	if err != nil {
		panic(err)
	}
	return Delivery{Event: event, ID: fmt.Sprintf("72d3162e-cc78-11e3-81ab-%012x", s.seq), Body: body}
}

// Headers are the headers GitHub sends with a delivery, signed with secret:
// X-Hub-Signature-256 and the legacy SHA-1 X-Hub-Signature.
func (d Delivery) Headers(secret string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "GitHub-Hookshot/5a1b2c3")
	h.Set("X-GitHub-Event", d.Event)
	h.Set("X-GitHub-Delivery", d.ID)
	h.Set("X-GitHub-Hook-ID", "123456")
	h.Set("X-GitHub-Hook-Installation-Target-Type", "integration")
	h.Set("X-GitHub-Hook-Installation-Target-ID", "4242")
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(d.Body)
	h.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(m.Sum(nil)))
	m1 := hmac.New(sha1.New, []byte(secret))
	m1.Write(d.Body)
	h.Set("X-Hub-Signature", "sha1="+hex.EncodeToString(m1.Sum(nil)))
	return h
}

// Deliver POSTs the delivery to url as GitHub does and returns the status;
// the attempt is recorded (deliveries.go), and a failed one is not retried.
func (s *Server) Deliver(ctx context.Context, url string, d Delivery) (int, error) {
	return s.attempt(ctx, url, d, false)
}

// Post sends body with the given headers and returns the status code.
func Post(ctx context.Context, url string, body []byte, h http.Header) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header = h
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// pullRequestEvent is a pull_request payload; s.mu must be held.
func (r *Repo) pullRequestEvent(action string, pr *pullRequest, sender User, extra obj) obj {
	base := r.s.URL()
	p := obj{"action": action, "number": pr.number, "pull_request": r.prJSON(base, pr),
		"repository": r.repoJSON(base), "sender": r.s.userJSON(base, sender)}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

func (r *Repo) checkRunEvent(action string, cr *checkRun) obj {
	base := r.s.URL()
	run := r.checkRunJSON(base, cr)
	suite := r.checkSuiteJSON(base, cr.suite)
	delete(suite, "repository")
	run["check_suite"] = suite
	sender := User{Login: cr.app.Slug + "[bot]", ID: 900000 + cr.app.ID, Type: "Bot"}
	return obj{"action": action, "check_run": run, "repository": r.repoJSON(base), "sender": r.s.userJSON(base, sender)}
}

func (r *Repo) checkSuiteEvent(action string, cs *checkSuite) obj {
	base := r.s.URL()
	suite := r.checkSuiteJSON(base, cs)
	delete(suite, "repository")
	sender := User{Login: cs.app.Slug + "[bot]", ID: 900000 + cs.app.ID, Type: "Bot"}
	return obj{"action": action, "check_suite": suite, "repository": r.repoJSON(base), "sender": r.s.userJSON(base, sender)}
}

func (r *Repo) issueCommentEvent(action string, c *comment) obj {
	base := r.s.URL()
	return obj{"action": action, "issue": r.issueJSON(base, r.issues[c.issue]), "comment": r.commentJSON(base, c),
		"repository": r.repoJSON(base), "sender": r.s.userJSON(base, c.user)}
}
