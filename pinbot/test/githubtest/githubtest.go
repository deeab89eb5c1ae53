// Package githubtest is a stateful GitHub simulator for tests: an httptest
// server speaking GitHub's REST JSON for the endpoints pinbot calls, backed by
// real git repositories on disk, that issues App installation tokens (checking
// the App JWT's RS256 signature), answers conditional requests with 304,
// reports rate limits, serves both "/" and GitHub Enterprise Server's
// "/api/v3/" prefix, produces signed webhook deliveries in the order GitHub
// sends them, and injects faults.
//
// Field names follow GitHub's REST documentation and the payloads GitHub
// sends (compared against github.com/octokit/webhooks examples), not
// go-github's structs, so that tests using the real go-github client check
// pinbot against GitHub's wire format rather than against itself.
package githubtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kubetenant/kubetenant/pinbot"
)

// App is a GitHub App as check runs and check suites carry it.
type App struct {
	ID   int64
	Slug string
	Name string
}

// GitHubActions is the App that runs GitHub Actions workflows.
var GitHubActions = App{ID: 15368, Slug: "github-actions", Name: "GitHub Actions"}

// GitHubActionsUser is the account a workflow's GITHUB_TOKEN writes as.
var GitHubActionsUser = User{Login: "github-actions[bot]", ID: 41898282, Type: "Bot"}

// User is a GitHub account. Type is "User", "Bot" or "Organization".
type User struct {
	Login string
	ID    int64
	Type  string
}

// DependabotUser is the account Dependabot opens pull requests as.
var DependabotUser = User{Login: "dependabot[bot]", ID: 49699333, Type: "Bot"}

// RenovateUser is the account the Renovate App opens pull requests as.
var RenovateUser = User{Login: "renovate[bot]", ID: 29139614, Type: "Bot"}

// Options configure a simulator. Zero values get defaults.
type Options struct {
	// AppID and AppSlug describe the App under test (default 4242, "pinbot").
	AppID   int64
	AppSlug string
	// InstallationID is the installation every repository belongs to (default 1).
	InstallationID int64
	// WebhookSecret signs deliveries (default "test-secret").
	WebhookSecret string
	// TokenTTL is how long installation tokens live (default one hour).
	TokenTTL time.Duration
	// Permissions are the installation's permissions, granted to every
	// token it issues and checked on every request (permissions.go). Nil
	// means those pinbot/app.yml asks for; then any request refused for a
	// missing permission fails the test when it ends, so that no test
	// passes while pinbot needs a permission the manifest lacks.
	Permissions map[string]string
	// TLS serves HTTPS with a certificate for 127.0.0.1 signed by a private
	// CA made for this simulator (CACertPEM), as a GitHub Enterprise Server
	// behind a company CA is.
	TLS bool
	// CreatorFilterMissesBots makes the issues list's creator filter match
	// no "[bot]" login, as on the GitHub deployments where it does not
	// find an App's issues (issue 24, item 6).
	CreatorFilterMissesBots bool
	// HeadFilterLoose makes the pulls list's head filter ("owner:branch")
	// match the branch name alone, pull requests from forks included: a
	// list filter is a convenience, and a client that closes what a list
	// returns must check each pull request's head itself (issue 36,
	// item 5).
	HeadFilterLoose bool
}

// The App key is generated once per test binary: RSA key generation is slow
// under the race detector, and every simulator is its own App anyway.
var (
	keyOnce   sync.Once
	sharedKey *rsa.PrivateKey
	keyErr    error
)

// Server is the simulator. All methods are safe for concurrent use.
type Server struct {
	ts   *httptest.Server
	opts Options
	key  *rsa.PrivateKey
	tb   TB

	mu     sync.Mutex
	nextID int64
	repos  map[string]*Repo
	tokens map[string]token
	denied []string
	routes []string // every "METHOD pattern" served

	registrations map[string]*registration // manifest-flow codes
	caPEM         []byte                   // with Options.TLS
	faults        []*Fault
	stats         Stats
	remaining     int
	anonRemaining int
	deliveries    []Delivery
	hooks         hookLog // every delivery attempt (deliveries.go)
	seq           int
	archives      map[string]string // download token -> owner/repo@sha
	truncateTrees bool
}

// Stats counts the requests the simulator answered.
type Stats struct {
	// Calls counts every request, including token requests and 304s.
	Calls int
	// NotModified counts 304 answers to conditional requests.
	NotModified int
	// Anonymous counts requests without a token (reads of public
	// repositories).
	Anonymous int
	// TokenRequests counts POST /app/installations/{id}/access_tokens.
	TokenRequests int
	// ByRoute counts requests by "METHOD pattern".
	ByRoute map[string]int
}

// TB is the part of testing.TB the simulator uses, so that programs (the
// `make run` demo) can run it too.
type TB interface {
	Helper()
	TempDir() string
	Cleanup(func())
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// New starts a simulator that stops when the test ends.
func New(tb TB, opts Options) *Server {
	tb.Helper()
	if opts.AppID == 0 {
		opts.AppID = 4242
	}
	if opts.AppSlug == "" {
		opts.AppSlug = "pinbot"
	}
	if opts.InstallationID == 0 {
		opts.InstallationID = 1
	}
	if opts.WebhookSecret == "" {
		opts.WebhookSecret = "test-secret"
	}
	if opts.TokenTTL == 0 {
		opts.TokenTTL = time.Hour
	}
	fromManifest := opts.Permissions == nil
	if fromManifest {
		opts.Permissions = pinbot.AppManifest().DefaultPermissions
	}
	keyOnce.Do(func() { sharedKey, keyErr = rsa.GenerateKey(rand.Reader, 2048) })
	if keyErr != nil {
		tb.Fatalf("generating App key: %v", keyErr)
	}
	key := sharedKey
	s := &Server{
		opts: opts, key: key, tb: tb, nextID: 1000,
		repos: map[string]*Repo{}, tokens: map[string]token{}, archives: map[string]string{},
		remaining: 5000, anonRemaining: 60, stats: Stats{ByRoute: map[string]int{}},
	}
	s.ts = httptest.NewUnstartedServer(s.handler())
	if opts.TLS {
		ca, leaf, err := privateCA()
		if err != nil {
			tb.Fatalf("making the simulator's CA: %v", err)
		}
		s.caPEM = ca
		s.ts.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}}
		s.ts.StartTLS()
	} else {
		s.ts.Start()
	}
	tb.Cleanup(s.ts.Close)
	tb.Cleanup(s.WaitRedeliveries)
	if fromManifest {
		tb.Cleanup(func() {
			if d := s.Denied(); len(d) > 0 {
				tb.Errorf("githubtest: pinbot called endpoints that pinbot/app.yml does not grant:\n  %s", strings.Join(d, "\n  "))
			}
		})
	}
	return s
}

// token is an installation token (or a workflow's GITHUB_TOKEN) and what
// it may do.
type token struct {
	expires     time.Time
	permissions map[string]string
	who         actor // zero: the App under test
}

// actor is who a token writes as.
type actor struct {
	app  App
	user User
}

// CACertPEM is the private CA that signed the certificate of a simulator
// started with Options.TLS (nil otherwise).
func (s *Server) CACertPEM() []byte { return s.caPEM }

// privateCA makes a CA and a certificate for 127.0.0.1 and localhost
// signed by it, valid for a day.
func privateCA() (caPEM []byte, leaf tls.Certificate, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, leaf, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "githubtest private CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, leaf, err
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, leaf, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, leaf, err
	}
	leaf = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), leaf, nil
}

// Denied lists the requests refused for a missing permission, as
// "METHOD pattern (needs perm=level)", each once, since the start.
func (s *Server) Denied() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.denied)
}

// URL is the API base as for github.com, with a trailing slash.
func (s *Server) URL() string { return s.ts.URL + "/" }

// EnterpriseURL is the API base as for GitHub Enterprise Server.
func (s *Server) EnterpriseURL() string { return s.ts.URL + "/api/v3/" }

// App is the App under test.
func (s *Server) App() App {
	return App{ID: s.opts.AppID, Slug: s.opts.AppSlug, Name: s.opts.AppSlug}
}

// AppUser is the bot account the App under test writes as.
func (s *Server) AppUser() User {
	return User{Login: s.opts.AppSlug + "[bot]", ID: 900000 + s.opts.AppID, Type: "Bot"}
}

// InstallationID is the installation the repositories belong to.
func (s *Server) InstallationID() int64 { return s.opts.InstallationID }

// WebhookSecret is the secret deliveries are signed with.
func (s *Server) WebhookSecret() string { return s.opts.WebhookSecret }

// PrivateKeyPEM is the App's private key, PKCS#1 PEM, as GitHub hands it out.
func (s *Server) PrivateKeyPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(s.key)})
}

// Stats returns a copy of the request counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.stats
	c.ByRoute = make(map[string]int, len(s.stats.ByRoute))
	for k, v := range s.stats.ByRoute {
		c.ByRoute[k] = v
	}
	return c
}

// ResetStats zeroes the request counters.
func (s *Server) ResetStats() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats = Stats{ByRoute: map[string]int{}}
}

// Fault makes matching requests fail before they reach the simulated state.
type Fault struct {
	// Method and Path select requests: Method exactly (empty matches any),
	// Path as a substring of the request path without the /api/v3 prefix.
	Method string
	Path   string
	// Status is the status answered (0 answers normally after Delay).
	Status int
	// Times is how many requests fail; 0 means every one, for good.
	Times int
	// RetryAfter, when set with Status 403 or 429, answers a secondary rate
	// limit with this Retry-After (seconds).
	RetryAfter int
	// Exhausted, with Status 403, answers as an exhausted primary rate
	// limit: X-RateLimit-Remaining 0 and a reset ResetIn from now.
	Exhausted bool
	ResetIn   time.Duration
	// Secondary, with Status 403 or 429, answers a secondary rate limit
	// without Retry-After (GitHub then asks to wait at least a minute).
	Secondary bool
	// Delay is waited before answering.
	Delay time.Duration

	hits int
}

// Fail adds a fault.
func (s *Server) Fail(f Fault) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	fp := &f
	s.faults = append(s.faults, fp)
	return fp
}

// TruncateTrees makes tree listings come back truncated, as GitHub's do
// past 100,000 entries or 7 MB.
func (s *Server) TruncateTrees(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.truncateTrees = on
}

// ClearFaults removes every fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// Hits is how many requests the fault has matched.
func (s *Server) Hits(f *Fault) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return f.hits
}

func (s *Server) id() int64 {
	s.nextID++
	return s.nextID
}

// CreateRepo creates a repository with a git repository in a temporary
// directory. Public repositories can be read by any installation, as on
// github.com; private ones only by the installation.
func (s *Server) CreateRepo(owner, name string, public bool) *Repo {
	s.tb.Helper()
	g, err := newGitRepo(s.tb.TempDir())
	if err != nil {
		s.tb.Fatalf("creating repository %s/%s: %v", owner, name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &Repo{
		s: s, Owner: owner, Name: name, ID: s.id(), Public: public, git: g,
		DefaultBranch: "main",
		prs:           map[int]*pullRequest{}, issues: map[int]*issue{},
		statuses: map[string][]*status{}, perms: map[string]string{},
		nextNumber: 1,
	}
	s.repos[strings.ToLower(owner+"/"+name)] = r
	return r
}

// Repo returns a repository created with CreateRepo, or nil.
func (s *Server) Repo(owner, name string) *Repo { return s.repo(owner, name) }

func (s *Server) repo(owner, name string) *Repo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.repos[strings.ToLower(owner+"/"+name)]
}

// Deliveries returns, and forgets, the webhook deliveries GitHub would have
// sent because of writes made through the API (check runs pinbot created,
// comments it posted, pull requests it closed), in order.
func (s *Server) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.deliveries
	s.deliveries = nil
	return d
}

func (s *Server) routeKeys() []string {
	keys := make([]string, 0, len(s.stats.ByRoute))
	for k := range s.stats.ByRoute {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// String summarises the counters, for test logs and benchmarks.
func (st Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "calls=%d not-modified=%d tokens=%d", st.Calls, st.NotModified, st.TokenRequests)
	s := &Server{stats: st}
	for _, k := range s.routeKeys() {
		fmt.Fprintf(&b, "\n  %4d %s", st.ByRoute[k], k)
	}
	return b.String()
}
