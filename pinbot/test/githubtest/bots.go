package githubtest

// EditPR changes a pull request's title and body, as an update bot does
// when it regenerates a group (Renovate rewrites its table, Dependabot its
// title), and returns the pull_request "edited" delivery GitHub sends,
// whose changes carry the previous values.
func (r *Repo) EditPR(number int, title, body string) Delivery {
	r.s.tb.Helper()
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	pr := r.prs[number]
	if pr == nil {
		r.s.tb.Fatalf("no pull request #%d in %s", number, r.FullName())
	}
	changes := map[string]any{"title": map[string]any{"from": pr.title}, "body": map[string]any{"from": pr.body}}
	pr.title, pr.body = title, body
	pr.updatedAt = r.s.now()
	return r.s.delivery("pull_request", r.pullRequestEvent("edited", pr, pr.user, map[string]any{"changes": changes}))
}
