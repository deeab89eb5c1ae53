package soak

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Operator is a tenant-operator running as a child process with its
// metrics on a free loopback port.
type Operator struct {
	// MetricsURL is the operator's Prometheus endpoint.
	MetricsURL string
	// Pid is the operator's process id: the memory verification measures
	// its process tree from /proc, outside the code under test (ADR 0289).
	Pid int

	cmd  *exec.Cmd
	log  *os.File
	done chan struct{}
	err  error
}

// StartOperator starts binary with kubeconfig, logging to logPath, and
// waits until its metrics answer. The kernel kills the child should this
// process die without stopping it.
func StartOperator(ctx context.Context, binary, kubeconfig, logPath string, extra ...string) (*Operator, error) {
	return StartOperatorWithEnv(ctx, binary, kubeconfig, logPath, nil, extra...)
}

// StartOperatorWithEnv is StartOperator with env (KEY=VALUE) added to the
// operator's environment only.
func StartOperatorWithEnv(ctx context.Context, binary, kubeconfig, logPath string, env []string, extra ...string) (*Operator, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	log, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("creating operator log: %w", err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	args := append([]string{
		"--kubeconfig", kubeconfig,
		"--metrics-bind-address", addr,
		"--health-probe-bind-address", "0",
	}, extra...)
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("starting %s: %w", binary, err)
	}
	o := &Operator{MetricsURL: "http://" + addr + "/metrics", Pid: cmd.Process.Pid, cmd: cmd, log: log, done: make(chan struct{})}
	go func() {
		o.err = cmd.Wait()
		close(o.done)
	}()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := o.Memory(ctx); err == nil {
			return o, nil
		}
		select {
		case <-o.done:
			o.log.Close()
			return nil, fmt.Errorf("tenant-operator exited during start-up (%v); see %s", o.err, logPath)
		case <-ctx.Done():
			o.Stop()
			return nil, fmt.Errorf("waiting for the operator's metrics: %w", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			o.Stop()
			return nil, fmt.Errorf("the operator's metrics at %s did not answer within 2m; see %s", o.MetricsURL, logPath)
		}
	}
}

// Exited is closed when the operator process has ended.
func (o *Operator) Exited() <-chan struct{} { return o.done }

// Memory scrapes the operator's memory figures.
func (o *Operator) Memory(ctx context.Context) (Memory, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.MetricsURL, nil)
	if err != nil {
		return Memory{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Memory{}, fmt.Errorf("scraping %s: %w", o.MetricsURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Memory{}, fmt.Errorf("scraping %s: %s", o.MetricsURL, resp.Status)
	}
	m, err := Parse(resp.Body)
	if err != nil {
		return Memory{}, fmt.Errorf("scraping %s: %w", o.MetricsURL, err)
	}
	return m, nil
}

// Stop sends SIGTERM, waits up to 20 seconds, then kills. It is safe to
// call more than once.
func (o *Operator) Stop() {
	select {
	case <-o.done:
	default:
		_ = o.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-o.done:
		case <-time.After(20 * time.Second):
			_ = o.cmd.Process.Kill()
			<-o.done
		}
	}
	_ = o.log.Close()
}

// Err is how the process ended, once Exited is closed: nil after a clean
// exit.
func (o *Operator) Err() error {
	var ee *exec.ExitError
	if errors.As(o.err, &ee) && ee.Exited() && ee.ExitCode() == 0 {
		return nil
	}
	return o.err
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Scrape returns the operator's metrics as Prometheus text.
func (o *Operator) Scrape(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.MetricsURL, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("scraping %s: %w", o.MetricsURL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("scraping %s: %s %v", o.MetricsURL, resp.Status, err)
	}
	return string(b), nil
}
