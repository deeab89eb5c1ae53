package controlplane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// controllerManagerControllers are the controllers a test cluster needs for
// deletion to behave as in production: the garbage collector follows owner
// references, the namespace controller empties and removes terminating
// namespaces, and the service-account controller creates each namespace's
// default service account (which Start uses as proof of life). The
// cluster-role aggregation controller fills the admin, edit and view
// ClusterRoles that tenant owners are bound to, so that owner access can be
// tested for real, and the resource-quota controller reports quota usage.
const controllerManagerControllers = "garbage-collector-controller,namespace-controller,serviceaccount-controller," +
	"clusterrole-aggregation-controller,resourcequota-controller"

// controllerManagerArgs are the flags that run kube-controller-manager
// against an envtest API server as a system:masters user. Secure serving is
// off, so it needs no serving certificate, authentication or authorization
// delegation.
func controllerManagerArgs(kubeconfig string) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--controllers=" + controllerManagerControllers,
		"--use-service-account-credentials=false",
		// Tests create and delete quickly; the default 20 QPS throttles the
		// namespace controller's many deletecollection calls.
		"--kube-api-qps=1000",
		"--kube-api-burst=2000",
		"--v=1",
	}
}

// startControllerManager starts kube-controller-manager as c's child and
// waits until the service-account controller has created the default
// service account of the default namespace.
func (c *ControlPlane) startControllerManager(ctx context.Context) error {
	kubeconfig, _, err := c.AddUser("system:kube-controller-manager", "system:masters")
	if err != nil {
		return fmt.Errorf("provisioning kube-controller-manager's user: %w", err)
	}
	logPath := filepath.Join(c.dir, controllerManagerBinary+".log")
	p, err := startProcess(filepath.Join(c.assets, controllerManagerBinary), controllerManagerArgs(kubeconfig), logPath)
	if err != nil {
		return err
	}
	c.kcm = p

	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return fmt.Errorf("creating a client for the control plane: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, controllerManagerReadyTimeout)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var lastErr error
	for {
		_, err := cs.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
		if err == nil {
			return nil
		}
		if !apierrors.IsNotFound(err) {
			lastErr = err
		}
		select {
		case <-p.done:
			return fmt.Errorf("kube-controller-manager exited before becoming ready (%v); log %s ends:\n%s", p.waitErr, logPath, tail(logPath, 40))
		case <-ctx.Done():
			why := ctx.Err()
			if lastErr != nil {
				why = fmt.Errorf("%w (last error: %v)", why, lastErr)
			}
			return fmt.Errorf("waiting for kube-controller-manager to create default/default service account: %w; log %s ends:\n%s", why, logPath, tail(logPath, 40))
		case <-tick.C:
		}
	}
}

// process is a child process whose output goes to a log file.
type process struct {
	cmd     *exec.Cmd
	log     *os.File
	done    chan struct{} // closed when the process has exited
	waitErr error         // set before done is closed
}

// startProcess starts path with args, output to logPath.
func startProcess(path string, args []string, logPath string) (*process, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("creating log for %s: %w", filepath.Base(path), err)
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	p := &process{cmd: cmd, log: log, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// stopGrace is how long a child gets to exit after SIGTERM before SIGKILL.
const stopGrace = 10 * time.Second

// stop terminates the process, killing it if it ignores SIGTERM.
func (p *process) stop() error {
	defer p.log.Close()
	select {
	case <-p.done:
		return nil // already exited (a crash is reported by whoever waited for readiness)
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signalling %s: %w", p.cmd.Path, err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(stopGrace):
	}
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("killing %s: %w", p.cmd.Path, err)
	}
	<-p.done
	return nil
}

// tail returns the last n lines of the file at path, or a note saying why
// it cannot.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	b = bytes.TrimRight(b, "\n")
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
