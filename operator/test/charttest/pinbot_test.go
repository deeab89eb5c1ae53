package charttest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestChartPinbotServes starts the real `pinbot serve` with the arguments
// the chart renders (the Secret mount paths moved under a temporary
// directory holding a real key and secret) and requires /healthz and
// /readyz to answer 200: the chart's flags are ones pinbot knows.
func TestChartPinbotServes(t *testing.T) {
	bin := pinbotBinary(t)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})

	for _, values := range []string{"ci/default-values.yaml", "ci/ingress-values.yaml", "ci/ghes-dryrun-values.yaml"} {
		t.Run(values, func(t *testing.T) {
			_, objs := release{Chart: pinbotChart, Name: "bot", Namespace: pinbotNS, Values: []string{values}}.render(t)
			d := index(objs)["Deployment/bot-pinbot"]
			root := t.TempDir()
			var args []string
			for _, a := range firstContainer(t, d)["args"].([]any) {
				a := a.(string)
				if strings.HasPrefix(a, "--listen=") {
					a = "--listen=127.0.0.1:0"
				}
				if name, path, ok := strings.Cut(a, "=/etc/pinbot/"); ok {
					file := filepath.Join(root, path)
					content := []byte("webhook-secret-for-the-chart-test\n")
					if name == "--private-key-file" {
						content = keyPEM
					}
					if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(file, content, 0o600); err != nil {
						t.Fatal(err)
					}
					a = name + "=" + file
				}
				args = append(args, a)
			}
			logs := startOperator(t, bin, args, nil)
			addr := waitServing(t, logs)
			for _, path := range []string{"/healthz", "/readyz"} {
				resp, err := http.Get("http://" + addr + path)
				if err != nil {
					t.Fatalf("GET %s: %v", path, err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("GET %s = %d, want 200", path, resp.StatusCode)
				}
			}
		})
	}
}

// waitServing waits for pinbot's "serving" log line and returns its address.
func waitServing(t *testing.T, logs *operatorLogs) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		logs.mu.Lock()
		lines := strings.Split(logs.buf.String(), "\n")
		logs.mu.Unlock()
		for _, l := range lines {
			var rec struct{ Msg, Addr string }
			if json.Unmarshal([]byte(l), &rec) == nil && rec.Msg == "serving" && rec.Addr != "" {
				return rec.Addr
			}
		}
		if err := logs.exited(); err != nil {
			t.Fatalf("pinbot exited: %v\n%s", err, logs.tail(20))
		}
		select {
		case <-ctx.Done():
			t.Fatalf("pinbot did not log \"serving\" within a minute:\n%s", logs.tail(20))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// pinbotBinary is $PINBOT, or ./cmd/pinbot of the pinbot module built now.
func pinbotBinary(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("PINBOT"); b != "" {
		return b
	}
	out := filepath.Join(t.TempDir(), "pinbot")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/pinbot")
	cmd.Dir = filepath.Join(repoRoot(t), "pinbot")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building pinbot: %v\n%s", err, b)
	}
	return out
}
