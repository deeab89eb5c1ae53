package controlplane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
)

// apiServerReadyTimeout bounds how long StartAPIServer waits for /readyz.
const apiServerReadyTimeout = 2 * time.Minute

// StopAPIServer stops kube-apiserver, with SIGKILL when kill is true (a
// crash, an OOM kill) and SIGTERM otherwise (a rolling restart), and waits
// until it has exited. etcd keeps running with every object; clients see
// connections refused until StartAPIServer. For chaos tests (Linux only:
// the process is found through /proc).
func (c *ControlPlane) StopAPIServer(kill bool) error {
	c.apiMu.Lock()
	defer c.apiMu.Unlock()
	if c.apiStopped {
		return errors.New("kube-apiserver is already stopped")
	}
	pid, err := c.apiServerPID()
	if err != nil {
		return err
	}
	if c.apiArgs == nil {
		if c.apiArgs, err = cmdline(pid); err != nil {
			return err
		}
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if c.api != nil {
		if err := c.api.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return fmt.Errorf("signalling kube-apiserver: %w", err)
		}
		select {
		case <-c.api.done:
		case <-time.After(stopGrace):
			_ = c.api.cmd.Process.Kill()
			<-c.api.done
		}
		c.api.log.Close()
		c.api = nil
	} else {
		// envtest's child: envtest reaps it; wait until it is gone.
		if err := syscall.Kill(pid, sig); err != nil {
			return fmt.Errorf("signalling kube-apiserver (pid %d): %w", pid, err)
		}
		deadline := time.Now().Add(stopGrace)
		for alive(pid) {
			if time.Now().After(deadline) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				deadline = time.Now().Add(stopGrace)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	c.apiStopped = true
	return nil
}

// StartAPIServer starts kube-apiserver again after StopAPIServer, with the
// same flags, certificates and port, so every client's configuration keeps
// working, and waits until its /readyz answers ok.
func (c *ControlPlane) StartAPIServer(ctx context.Context) error {
	c.apiMu.Lock()
	defer c.apiMu.Unlock()
	if !c.apiStopped {
		return errors.New("kube-apiserver is running")
	}
	ctx, cancel := context.WithTimeout(ctx, apiServerReadyTimeout)
	defer cancel()
	for {
		err := c.startAPIServerOnce(ctx)
		if !errors.Is(err, errPortTaken) {
			return err
		}
		// The port is free again once whatever took it lets go: a client
		// dialling the stopped server from an ephemeral port can be given
		// the server's own port for a moment (a TCP self-connect, which
		// Go's dialer closes and retries).
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (%v)", err, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// errPortTaken: kube-apiserver exited because its port was in use.
var errPortTaken = errors.New("kube-apiserver's port is in use")

func (c *ControlPlane) startAPIServerOnce(ctx context.Context) error {
	c.apiStarts++
	logPath := filepath.Join(c.dir, fmt.Sprintf("%s-%d.log", apiServerBinary, c.apiStarts))
	p, err := startProcess(c.apiArgs[0], c.apiArgs[1:], logPath)
	if err != nil {
		return err
	}
	c.api, c.apiStopped = p, false
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return fmt.Errorf("creating a client for the control plane: %w", err)
	}
	for {
		body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err == nil && string(body) == "ok" {
			return nil
		}
		select {
		case <-p.done:
			c.api, c.apiStopped = nil, true
			p.log.Close()
			log := tail(logPath, 40)
			if strings.Contains(log, "bind: address already in use") {
				return fmt.Errorf("%w: log %s", errPortTaken, logPath)
			}
			return fmt.Errorf("kube-apiserver exited while starting again (%v); log %s ends:\n%s", p.waitErr, logPath, log)
		case <-ctx.Done():
			return fmt.Errorf("waiting for the restarted kube-apiserver's /readyz: %w (last error: %v)", ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// RestartAPIServer is StopAPIServer then StartAPIServer.
func (c *ControlPlane) RestartAPIServer(ctx context.Context, kill bool) error {
	if err := c.StopAPIServer(kill); err != nil {
		return err
	}
	return c.StartAPIServer(ctx)
}

// stopRestartedAPIServer stops a kube-apiserver that StartAPIServer
// started (envtest stops only its own).
func (c *ControlPlane) stopRestartedAPIServer() error {
	c.apiMu.Lock()
	defer c.apiMu.Unlock()
	if c.api == nil {
		return nil
	}
	err := c.api.stop()
	c.api = nil
	return err
}

// APIServerPID returns the process id of the running kube-apiserver, for
// measurements read from /proc outside the code under test (CPU time,
// resident memory). Linux only.
func (c *ControlPlane) APIServerPID() (int, error) {
	c.apiMu.Lock()
	defer c.apiMu.Unlock()
	if c.apiStopped {
		return 0, errors.New("kube-apiserver is stopped")
	}
	return c.apiServerPID()
}

// apiServerPID finds the running kube-apiserver: the one StartAPIServer
// started, else envtest's child of this process running the assets'
// binary.
func (c *ControlPlane) apiServerPID() (int, error) {
	if c.api != nil {
		return c.api.cmd.Process.Pid, nil
	}
	want := filepath.Join(c.assets, apiServerBinary)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("finding kube-apiserver: %w", err)
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, state := stat(pid); ppid != self || state == "Z" {
			continue
		}
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && exe == want {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no running %s is a child of this process", want)
}

// stat returns the parent pid and state of pid from /proc, or 0 and "".
func stat(pid int) (ppid int, state string) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, ""
	}
	// pid (comm) state ppid ...; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, ""
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, ""
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0]
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	_, state := stat(pid)
	return state != "" && state != "Z"
}

// cmdline returns the command line of pid.
func cmdline(pid int) ([]string, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return nil, fmt.Errorf("reading kube-apiserver's command line: %w", err)
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	if len(args) == 0 || args[0] == "" {
		return nil, fmt.Errorf("kube-apiserver (pid %d) has an empty command line", pid)
	}
	return args, nil
}
