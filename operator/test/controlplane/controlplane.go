// Package controlplane starts a real Kubernetes control plane for tests and
// for `make run`: etcd and kube-apiserver through controller-runtime's envtest,
// and, on request, kube-controller-manager as a child process so that garbage
// collection, namespace deletion and default service accounts happen as they
// do in a cluster.
//
// The binaries come from the assets directory that `make test-assets` fills
// (bin/k8s), built from the Go modules of the pinned Kubernetes and etcd
// releases (see ADR 0005).
package controlplane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Options configures Start. The zero value starts etcd and kube-apiserver
// from the default assets directory.
type Options struct {
	// AssetsDir holds etcd, kube-apiserver, kube-controller-manager and
	// kubectl. Default: $KUBEBUILDER_ASSETS, else <repo>/bin/k8s, where <repo>
	// is the nearest directory above the working directory holding go.work.
	AssetsDir string
	// CRDDirectoryPaths lists directories of CRD manifests to install before
	// Start returns. A missing directory is an error.
	CRDDirectoryPaths []string
	// ControllerManager also starts kube-controller-manager with the garbage
	// collector, namespace and service-account controllers.
	ControllerManager bool
	// Dir receives kubeconfig files and process logs. Default: a temporary
	// directory that Stop removes.
	Dir string
}

// ControlPlane is a running etcd, kube-apiserver and optional
// kube-controller-manager. Stop it when done.
type ControlPlane struct {
	// Config is a client configuration for an administrator in the
	// system:masters group.
	Config *rest.Config
	// Kubeconfig is the path of a kubeconfig file for an administrator in
	// system:masters, for kubectl and child processes.
	Kubeconfig string

	env       *envtest.Environment
	assets    string
	dir       string
	removeDir bool
	logs      []*os.File
	kcm       *process

	apiMu      sync.Mutex // guards the kube-apiserver restart state below
	apiArgs    []string   // kube-apiserver's command line, kept for StartAPIServer
	api        *process   // the kube-apiserver StartAPIServer started, if any
	apiStopped bool
	apiStarts  int

	mu       sync.Mutex // guards users and AddUser's use of env
	users    int
	stopOnce sync.Once
	stopErr  error
}

// controllerManagerReadyTimeout bounds how long Start waits for the
// controller-manager to show it works. Generous: on a busy two-core machine
// it competes with the race-enabled tests of other packages.
const controllerManagerReadyTimeout = 2 * time.Minute

// Start starts etcd and kube-apiserver, installs the CRDs and, if asked,
// starts kube-controller-manager and waits until its controllers act. ctx
// bounds start-up only; the processes run until Stop.
func Start(ctx context.Context, opts Options) (cp *ControlPlane, err error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("finding the working directory: %w", err)
	}
	assets, err := assetsDir(opts.AssetsDir, os.Getenv, wd)
	if err != nil {
		return nil, err
	}
	assets, err = filepath.Abs(assets)
	if err != nil {
		return nil, fmt.Errorf("resolving assets directory %s: %w", assets, err)
	}
	need := []string{etcdBinary, apiServerBinary, kubectlBinary}
	if opts.ControllerManager {
		need = append(need, controllerManagerBinary)
	}
	if err := checkAssets(assets, need...); err != nil {
		return nil, err
	}

	c := &ControlPlane{assets: assets, dir: opts.Dir}
	if c.dir == "" {
		if c.dir, err = os.MkdirTemp("", "kubetenant-controlplane-"); err != nil {
			return nil, fmt.Errorf("creating control-plane directory: %w", err)
		}
		c.removeDir = true
	} else if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating control-plane directory %s: %w", c.dir, err)
	}
	defer func() {
		if err != nil {
			_ = c.Stop()
		}
	}()

	apiLog, err := c.logFile(apiServerBinary)
	if err != nil {
		return nil, err
	}
	etcdLog, err := c.logFile(etcdBinary)
	if err != nil {
		return nil, err
	}
	useExisting := false
	c.env = &envtest.Environment{
		ControlPlane: envtest.ControlPlane{
			APIServer:   &envtest.APIServer{Path: filepath.Join(assets, apiServerBinary), Out: apiLog, Err: apiLog},
			Etcd:        &envtest.Etcd{Path: filepath.Join(assets, etcdBinary), Out: etcdLog, Err: etcdLog},
			KubectlPath: filepath.Join(assets, kubectlBinary),
		},
		CRDDirectoryPaths:     opts.CRDDirectoryPaths,
		ErrorIfCRDPathMissing: true,
		// Never talk to whatever cluster USE_EXISTING_CLUSTER points at.
		UseExistingCluster: &useExisting,
	}
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") == "" {
		// envtest's 20 s default is too tight for a busy two-core machine.
		c.env.ControlPlaneStartTimeout = time.Minute
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("starting control plane: %w", err)
	}
	cfg, err := c.env.Start()
	if err != nil {
		return nil, fmt.Errorf("starting etcd and kube-apiserver from %s (logs in %s): %w", assets, c.dir, err)
	}
	c.Config = rest.CopyConfig(cfg)
	c.Kubeconfig = filepath.Join(c.dir, "admin.kubeconfig")
	if err := os.WriteFile(c.Kubeconfig, c.env.KubeConfig, 0o600); err != nil {
		return nil, fmt.Errorf("writing admin kubeconfig: %w", err)
	}

	if opts.ControllerManager {
		if err := c.startControllerManager(ctx); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Kubectl returns the path of the kubectl binary of the control plane's
// release. Point it at Kubeconfig with --kubeconfig.
func (c *ControlPlane) Kubectl() string {
	return filepath.Join(c.assets, kubectlBinary)
}

// Dir returns the directory holding kubeconfig files and process logs.
func (c *ControlPlane) Dir() string {
	return c.dir
}

// unsafeFileChars matches what a user name may contain but a file name
// should not.
var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// AddUser provisions a client-certificate user with the given name and
// groups, and returns the path of a kubeconfig file for it and an equivalent
// client configuration. The user has only the permissions RBAC grants it
// (none, unless a group such as system:masters says otherwise).
func (c *ControlPlane) AddUser(name string, groups ...string) (kubeconfigPath string, cfg *rest.Config, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	u, err := c.env.AddUser(envtest.User{Name: name, Groups: groups}, rest.CopyConfig(c.Config))
	if err != nil {
		return "", nil, fmt.Errorf("adding user %s: %w", name, err)
	}
	kc, err := u.KubeConfig()
	if err != nil {
		return "", nil, fmt.Errorf("writing kubeconfig for user %s: %w", name, err)
	}
	c.users++
	path := filepath.Join(c.dir, fmt.Sprintf("user-%d-%s.kubeconfig", c.users, unsafeFileChars.ReplaceAllString(name, "_")))
	if err := os.WriteFile(path, kc, 0o600); err != nil {
		return "", nil, fmt.Errorf("writing kubeconfig for user %s: %w", name, err)
	}
	return path, rest.CopyConfig(u.Config()), nil
}

// Stop stops kube-controller-manager, kube-apiserver and etcd, and removes
// the directory Start created. Calling it again returns the first result.
func (c *ControlPlane) Stop() error {
	c.stopOnce.Do(func() {
		var errs []error
		if c.kcm != nil {
			if err := c.kcm.stop(); err != nil {
				errs = append(errs, fmt.Errorf("stopping kube-controller-manager: %w", err))
			}
		}
		if err := c.stopRestartedAPIServer(); err != nil {
			errs = append(errs, fmt.Errorf("stopping the restarted kube-apiserver: %w", err))
		}
		if c.env != nil {
			if err := c.env.Stop(); err != nil {
				errs = append(errs, fmt.Errorf("stopping etcd and kube-apiserver: %w", err))
			}
		}
		for _, f := range c.logs {
			if err := f.Close(); err != nil {
				errs = append(errs, fmt.Errorf("closing log %s: %w", f.Name(), err))
			}
		}
		if c.removeDir {
			if err := os.RemoveAll(c.dir); err != nil {
				errs = append(errs, fmt.Errorf("removing %s: %w", c.dir, err))
			}
		}
		c.stopErr = errors.Join(errs...)
	})
	return c.stopErr
}

// logFile creates <dir>/<name>.log and remembers to close it on Stop.
func (c *ControlPlane) logFile(name string) (*os.File, error) {
	f, err := os.Create(filepath.Join(c.dir, name+".log"))
	if err != nil {
		return nil, fmt.Errorf("creating log for %s: %w", name, err)
	}
	c.logs = append(c.logs, f)
	return f, nil
}
