package chaos

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// RestartDelay is how long the supervisor waits before starting an exited
// operator again (kubelet waits 10 s and more; the tests keep it short).
const RestartDelay = time.Second

// Operator is a tenant-operator child process under a supervisor that, as
// kubelet does for a container, starts it again whenever it exits, and
// counts the exits.
type Operator struct {
	// Name tells replicas apart in logs and reports.
	Name string

	binary string
	args   []string
	dir    string
	probe  string // host:port of /healthz and /readyz

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{} // closed when the current process exits
	starts  int
	exits   []string // how each process ended
	killed  int      // exits the test caused with Kill
	stopped bool
	logs    []string
}

// StartOperator starts binary with args (the probe address is added) and
// supervises it; logs go to dir/name-N.log.
func StartOperator(name, binary, dir string, args ...string) (*Operator, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	o := &Operator{Name: name, binary: binary, dir: dir, probe: fmt.Sprintf("127.0.0.1:%d", port)}
	o.args = append([]string{"--health-probe-bind-address", o.probe, "--metrics-bind-address", "0"}, args...)
	if err := o.start(); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *Operator) start() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped {
		return nil // Stop came during the restart delay
	}
	o.starts++
	path := filepath.Join(o.dir, fmt.Sprintf("%s-%d.log", o.Name, o.starts))
	log, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	cmd := exec.Command(o.binary, o.args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("starting %s: %w", o.binary, err)
	}
	o.cmd, o.done = cmd, make(chan struct{})
	o.logs = append(o.logs, path)
	done := o.done
	go func() {
		err := cmd.Wait()
		log.Close()
		o.mu.Lock()
		how := "exit 0"
		if err != nil {
			how = err.Error()
		}
		o.exits = append(o.exits, how)
		stopped := o.stopped
		o.mu.Unlock()
		close(done)
		if stopped {
			return
		}
		time.Sleep(RestartDelay)
		_ = o.start()
	}()
	return nil
}

// Kill sends SIGKILL to the running process and waits until it is gone;
// the supervisor starts it again after RestartDelay.
func (o *Operator) Kill() {
	o.mu.Lock()
	cmd, done := o.cmd, o.done
	o.killed++
	o.mu.Unlock()
	_ = cmd.Process.Kill()
	<-done
}

// Stop ends supervision and the process (SIGTERM, then SIGKILL after 20 s).
func (o *Operator) Stop() {
	o.mu.Lock()
	o.stopped = true
	cmd, done := o.cmd, o.done
	o.mu.Unlock()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// Exits returns how each process ended so far, and how many of those the
// test caused with Kill.
func (o *Operator) Exits() (exits []string, killed int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.exits...), o.killed
}

// Readyz asks the running process's /readyz; code 0 means no answer
// within timeout.
func (o *Operator) Readyz(ctx context.Context, timeout time.Duration) (code int, body string) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+o.probe+"/readyz?verbose", nil)
	if err != nil {
		return 0, err.Error()
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// WaitReady waits until /readyz answers 200.
func (o *Operator) WaitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		code, body := o.Readyz(ctx, 2*time.Second)
		if code == http.StatusOK {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: /readyz not ok within %s (last: %d %s); logs %v", o.Name, timeout, code, body, o.Logs())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Logs returns the paths of every process's log, oldest first.
func (o *Operator) Logs() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.logs...)
}

// Log returns every process's log, oldest first.
func (o *Operator) Log() string {
	var b strings.Builder
	for _, p := range o.Logs() {
		data, _ := os.ReadFile(p)
		b.Write(data)
	}
	return b.String()
}

// Leading reports whether the current process's log says it acquired the
// leader-election lease.
func (o *Operator) Leading() bool {
	logs := o.Logs()
	data, _ := os.ReadFile(logs[len(logs)-1])
	return strings.Contains(strings.ToLower(string(data)), "successfully acquired lease")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
