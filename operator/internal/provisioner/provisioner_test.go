package provisioner

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type request struct {
	Method, Path, Auth, Key string
	Body                    *Tenant
}

// server answers with the status codes given, one per request (the last
// one repeats), and records what it received.
func server(t *testing.T, codes ...int) (*httptest.Server, func() []request) {
	t.Helper()
	var mu sync.Mutex
	var got []request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		rec := request{Method: r.Method, Path: r.URL.Path, Auth: r.Header.Get("Authorization"), Key: r.Header.Get("Idempotency-Key")}
		if r.Method == http.MethodPut {
			rec.Body = &Tenant{}
			if err := json.NewDecoder(r.Body).Decode(rec.Body); err != nil {
				t.Errorf("decoding body: %v", err)
			}
		}
		code := codes[min(len(got), len(codes)-1)]
		got = append(got, rec)
		w.WriteHeader(code)
		if code == http.StatusBadRequest {
			_, _ = w.Write([]byte("quota exceeded for team\n"))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() []request {
		mu.Lock()
		defer mu.Unlock()
		return append([]request(nil), got...)
	}
}

func TestPut(t *testing.T) {
	tenant := Tenant{Name: "acme", UID: "u1", Generation: 2, Namespaces: []string{"acme-dev"},
		Owners: []Owner{{Kind: "User", Name: "alice", Role: "admin"}}}
	tests := []struct {
		name          string
		code          int
		wantErr       string
		wantPermanent bool
	}{
		{name: "200 is success", code: 200},
		{name: "204 is success", code: 204},
		{name: "400 is permanent", code: 400, wantErr: "400 Bad Request: quota exceeded for team", wantPermanent: true},
		{name: "403 is permanent", code: 403, wantErr: "403 Forbidden", wantPermanent: true},
		{name: "429 is temporary", code: 429, wantErr: "429 Too Many Requests"},
		{name: "500 is temporary", code: 500, wantErr: "500 Internal Server Error"},
		{name: "503 is temporary", code: 503, wantErr: "503 Service Unavailable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, got := server(t, tc.code)
			tokenFile := filepath.Join(t.TempDir(), "token")
			if err := os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := New(srv.URL+"/api/", tokenFile, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			err = c.Put(context.Background(), tenant)
			if tc.wantErr == "" && err != nil {
				t.Fatalf("Put: %v", err)
			}
			if tc.wantErr != "" {
				want := "PUT " + srv.URL + "/api/tenants/acme: " + tc.wantErr
				if err == nil || err.Error() != want {
					t.Fatalf("Put error = %v, want %q", err, want)
				}
			}
			if IsPermanent(err) != tc.wantPermanent {
				t.Errorf("IsPermanent = %v, want %v", IsPermanent(err), tc.wantPermanent)
			}
			want := []request{{Method: "PUT", Path: "/api/tenants/acme", Auth: "Bearer s3cret", Key: `"u1/2"`, Body: &tenant}}
			if diff := cmp.Diff(want, got()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDelete(t *testing.T) {
	tests := []struct {
		code    int
		wantErr bool
	}{{200, false}, {202, false}, {404, false}, {500, true}, {409, true}}
	for _, tc := range tests {
		t.Run(http.StatusText(tc.code), func(t *testing.T) {
			srv, got := server(t, tc.code)
			c, err := New(srv.URL, "", time.Second)
			if err != nil {
				t.Fatal(err)
			}
			err = c.Delete(context.Background(), Ref{Name: "acme", UID: "u1", Generation: 3})
			if (err != nil) != tc.wantErr {
				t.Fatalf("Delete error = %v, want error %v", err, tc.wantErr)
			}
			want := []request{{Method: "DELETE", Path: "/tenants/acme", Key: `"u1/3/delete"`}}
			if diff := cmp.Diff(want, got()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

// TestIdempotencyKey: a repeated call (after a failure the operator could
// not record) carries the same key; a new generation, another Tenant of the
// same name (a new UID) and the DELETE each carry a key of their own.
func TestIdempotencyKey(t *testing.T) {
	srv, got := server(t, 500, 200)
	c, err := New(srv.URL, "", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	gen1 := Tenant{Name: "acme", UID: "3f1c", Generation: 1}
	gen2 := Tenant{Name: "acme", UID: "3f1c", Generation: 2}
	reborn := Tenant{Name: "acme", UID: "9a07", Generation: 1}
	if err := c.Put(ctx, gen1); err == nil {
		t.Fatal("first Put succeeded, want the 500")
	}
	for _, tn := range []Tenant{gen1, gen2, reborn} {
		if err := c.Put(ctx, tn); err != nil {
			t.Fatalf("Put(%+v): %v", tn, err)
		}
	}
	if err := c.Delete(ctx, Ref{Name: "acme", UID: "9a07", Generation: 2}); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range got() {
		keys = append(keys, r.Method+" "+r.Key)
	}
	want := []string{`PUT "3f1c/1"`, `PUT "3f1c/1"`, `PUT "3f1c/2"`, `PUT "9a07/1"`, `DELETE "9a07/2/delete"`}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("idempotency keys (-want +got):\n%s", diff)
	}
	if k := Key("3f1c", 12); k != "3f1c/12" {
		t.Errorf("Key = %q, want 3f1c/12", k)
	}
}

func TestTimeoutIsTemporary(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c, err := New(srv.URL, "", 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Put(context.Background(), Tenant{Name: "acme"})
	if err == nil || !strings.Contains(err.Error(), "no answer within 50ms") {
		t.Fatalf("Put error = %v, want a timeout", err)
	}
	if IsPermanent(err) {
		t.Error("a timeout must be temporary")
	}
}

func TestConnectionRefusedIsTemporary(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close()
	c, err := New(addr, "", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Put(context.Background(), Tenant{Name: "acme"})
	if err == nil || IsPermanent(err) {
		t.Fatalf("Put error = %v, want a temporary error", err)
	}
}

func TestMissingTokenFileIsTemporary(t *testing.T) {
	srv, got := server(t, 200)
	c, err := New(srv.URL, filepath.Join(t.TempDir(), "absent"), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Put(context.Background(), Tenant{Name: "acme"})
	if err == nil || IsPermanent(err) || !strings.Contains(err.Error(), "reading token file") {
		t.Fatalf("Put error = %v, want a temporary token error", err)
	}
	if n := len(got()); n != 0 {
		t.Errorf("sent %d requests without a token, want 0", n)
	}
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"", "ftp://x", "/relative", "http://"} {
		if _, err := New(u, "", 0); err == nil {
			t.Errorf("New(%q) succeeded, want an error", u)
		}
	}
}

// privateCA makes a CA and a server certificate for 127.0.0.1 signed by it.
func privateCA(t *testing.T) (caPEM []byte, leaf tls.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "private CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestPrivateCA: a provisioner behind a private CA is refused (a temporary
// error) until its CA is given with WithCAFile; then the PUT arrives.
func TestPrivateCA(t *testing.T) {
	caPEM, leaf := privateCA(t)
	var puts atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		puts.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}}
	srv.StartTLS()
	defer srv.Close()
	tenant := Tenant{Name: "team-a", UID: "u", Generation: 1, Namespaces: []string{"team-a-dev"}}

	plain, err := New(srv.URL, "", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	err = plain.Put(context.Background(), tenant)
	if err == nil || IsPermanent(err) || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Fatalf("without the CA: %v, want a temporary unknown-authority error", err)
	}

	caFile := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(caFile, caPEM, 0o644)
	c, err := New(srv.URL, "", 5*time.Second, WithCAFile(caFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Put(context.Background(), tenant); err != nil {
		t.Fatalf("with the CA: %v", err)
	}
	if got := puts.Load(); got != 1 {
		t.Errorf("provisioner received %d requests, want 1", got)
	}

	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(notPEM, []byte("not a certificate"), 0o644)
	if _, err := New(srv.URL, "", time.Second, WithCAFile(notPEM)); err == nil || !strings.Contains(err.Error(), "holds no PEM certificate") {
		t.Errorf("a CA file without certificates: %v", err)
	}
}
