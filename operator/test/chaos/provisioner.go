package chaos

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Call is one request the Provisioner received.
type Call struct {
	Method string
	Tenant string
	// Key is the Idempotency-Key header as sent (a quoted string).
	Key string
	// Answered is false while the request waits for Release or was cut
	// off (its caller went away) before the answer was written.
	Answered bool
}

// Provisioner is an external provisioner that accepts every call and
// records it. Hold makes it record each PUT and then keep it waiting: the
// PUT has reached the provisioner, its answer has not reached the
// operator, which is the window a kill in between must survive.
type Provisioner struct {
	URL string

	srv     *httptest.Server
	mu      sync.Mutex
	calls   []Call
	hold    bool
	release chan struct{}
	arrived chan struct{} // signalled (non-blocking) on every held call
}

// NewProvisioner starts a Provisioner on a loopback port.
func NewProvisioner() *Provisioner {
	p := &Provisioner{release: make(chan struct{}), arrived: make(chan struct{}, 1)}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	p.URL = p.srv.URL
	return p
}

// Close releases held calls and stops the server.
func (p *Provisioner) Close() {
	p.Release()
	p.srv.Close()
}

func (p *Provisioner) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	i := len(p.calls)
	p.calls = append(p.calls, Call{Method: r.Method, Tenant: strings.TrimPrefix(r.URL.Path, "/tenants/"), Key: r.Header.Get("Idempotency-Key")})
	hold, release := p.hold && r.Method == http.MethodPut, p.release
	p.mu.Unlock()
	if hold {
		select {
		case p.arrived <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
			return // the caller is gone: never answered
		}
	}
	w.WriteHeader(http.StatusOK)
	p.mu.Lock()
	p.calls[i].Answered = true
	p.mu.Unlock()
}

// Hold makes every PUT from now on wait until Release.
func (p *Provisioner) Hold() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hold = true
}

// Release answers the held PUTs and stops holding.
func (p *Provisioner) Release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hold {
		p.hold = false
		close(p.release)
		p.release = make(chan struct{})
	}
}

// Arrived is signalled when a held PUT arrives.
func (p *Provisioner) Arrived() <-chan struct{} { return p.arrived }

// Calls returns a copy of the calls received so far.
func (p *Provisioner) Calls() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Call(nil), p.calls...)
}

// Waiting returns the tenants whose PUT has arrived and not been answered.
func (p *Provisioner) Waiting() []string {
	var out []string
	for _, c := range p.Calls() {
		if c.Method == http.MethodPut && !c.Answered {
			out = append(out, c.Tenant)
		}
	}
	return out
}

// PerKey counts the calls of method per idempotency key, and the keys
// each tenant's calls carried.
func (p *Provisioner) PerKey(method string) (perKey map[string]int, keys map[string][]string) {
	perKey, keys = map[string]int{}, map[string][]string{}
	for _, c := range p.Calls() {
		if c.Method != method {
			continue
		}
		if perKey[c.Key] == 0 {
			keys[c.Tenant] = append(keys[c.Tenant], c.Key)
		}
		perKey[c.Key]++
	}
	return perKey, keys
}
