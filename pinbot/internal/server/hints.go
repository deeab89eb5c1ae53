package server

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/kubetenant/kubetenant/pinbot/internal/lru"
	"github.com/kubetenant/kubetenant/pinbot/internal/report"
	"github.com/kubetenant/kubetenant/pinbot/internal/source"
)

// hints are this replica's cache of what it last saw of pull requests,
// checks and repositories, so that events which cannot change a verdict
// cost no call (ADR 0223). Bounded in entries: anything it does not know is read from GitHub,
// and nothing it holds can let a pinned upgrade through (a verdict is always
// decided on fresh reads of the checks).
type hints struct {
	mu     sync.Mutex
	prs    *lru.Cache[string, *prState]
	repos  *lru.Cache[string, []string] // verification check names
	checks *lru.Cache[string, bool]     // head SHAs with check activity
	// installed are the repositories deliveries came from, by full name
	// (a few bytes each; an installation's repositories are bounded).
	installed map[string]repoRef
	// looked are the installations' repositories discovery has looked at
	// for a dashboard (one list each per replica).
	looked map[string]bool
}

// prState is one pull request as last seen.
type prState struct {
	pr source.PullRequest
	// verdict is the last verdict at pr.HeadSHA ("" when not evaluated).
	verdict string
	// known is what pinbot wrote at pr.HeadSHA.
	known report.Known
}

func newHints(entries int) *hints {
	return &hints{
		prs:    lru.New[string, *prState](int64(entries)),
		repos:  lru.New[string, []string](int64(entries)),
		checks: lru.New[string, bool](int64(entries)),
	}
}

func prKey(repo string, number int) string { return fmt.Sprintf("%s#%d", repo, number) }

// sawPR records a pull request from a payload or a read. A new head
// forgets what was known of the old one.
func (m *hints) sawPR(key string, pr source.PullRequest) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.prs.Get(key)
	if !ok || st.pr.HeadSHA != pr.HeadSHA {
		m.prs.Put(key, &prState{pr: pr}, 1)
		return
	}
	cp := *st
	cp.pr = pr
	m.prs.Put(key, &cp, 1)
}

// pr returns the pull request as last seen at head.
func (m *hints) pr(key, head string) (*prState, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.prs.Get(key)
	if !ok || (head != "" && st.pr.HeadSHA != head) {
		return nil, false
	}
	cp := *st
	return &cp, true
}

// decided records a verdict and what pinbot wrote at the head.
func (m *hints) decided(key string, pr source.PullRequest, verdict string, known report.Known) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prs.Put(key, &prState{pr: pr, verdict: verdict, known: known}, 1)
}

func (m *hints) closed(key, head string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.prs.Get(key)
	if !ok {
		st = &prState{pr: source.PullRequest{HeadSHA: head, ChangedFiles: -1, Comments: -1}}
	}
	cp := *st
	cp.pr.State, cp.pr.HeadSHA = "closed", head
	m.prs.Put(key, &cp, 1)
}

func (m *hints) isClosed(key, head string) bool {
	st, ok := m.pr(key, head)
	return ok && st.pr.State == "closed"
}

func (m *hints) verdict(key, head string) string {
	st, ok := m.pr(key, head)
	if !ok {
		return ""
	}
	if st.pr.State == "closed" {
		return "closed"
	}
	return st.verdict
}

// openAt lists the open pull requests remembered at a head commit.
func (m *hints) openAt(repo, head string) []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []int
	for _, key := range m.prKeys(repo) {
		if st, ok := m.prs.Get(key); ok && st.pr.HeadSHA == head && st.pr.State != "closed" {
			out = append(out, st.pr.Number)
		}
	}
	return out
}

// prKeys is every remembered pull request of repo (memory is small: a
// scan is cheaper than a second index).
func (m *hints) prKeys(repo string) []string {
	return m.prs.Keys(func(k string) bool { return len(k) > len(repo) && k[:len(repo)] == repo && k[len(repo)] == '#' })
}

func (m *hints) learnChecks(repo string, names []string) {
	m.repos.Put(repo, slices.Clone(names), 1)
}

func (m *hints) checkNames(repo string) ([]string, bool) { return m.repos.Get(repo) }

func (m *hints) sawChecks(head string) {
	if head != "" {
		m.checks.Put(head, true, 1)
	}
}

func (m *hints) checksSeen(head string) bool {
	_, ok := m.checks.Get(head)
	return ok
}

// sawRepo remembers a repository and its installation, for the hourly
// upstream check.
func (m *hints) sawRepo(owner, repo string, installation int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.installed == nil {
		m.installed = map[string]repoRef{}
	}
	m.installed[owner+"/"+repo] = repoRef{installation: installation, owner: owner, repo: repo}
}

// lookedAt reports whether a repository is known (a delivery came from
// it, or discovery looked for its dashboard), and marks it looked at.
func (m *hints) lookedAt(fullName string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.installed[fullName]; ok || m.looked[fullName] {
		return true
	}
	if m.looked == nil {
		m.looked = map[string]bool{}
	}
	m.looked[fullName] = true
	return false
}

// forget undoes lookedAt, for a repository whose look failed.
func (m *hints) forget(fullName string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.looked, fullName)
}

// dashboards lists the repositories seen, sorted.
func (m *hints) dashboards() []repoRef {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []repoRef
	for _, j := range m.installed {
		out = append(out, j)
	}
	slices.SortFunc(out, func(a, b repoRef) int { return strings.Compare(a.owner+"/"+a.repo, b.owner+"/"+b.repo) })
	return out
}
