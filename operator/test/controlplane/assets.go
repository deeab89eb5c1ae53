package controlplane

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrAssetsMissing reports that the control-plane binaries are not where
// Start looked for them. `make test-assets` builds them.
var ErrAssetsMissing = errors.New("control-plane binaries missing (run `make test-assets`, or point KUBEBUILDER_ASSETS at a directory holding them)")

// Binary names looked up in the assets directory.
const (
	etcdBinary              = "etcd"
	apiServerBinary         = "kube-apiserver"
	controllerManagerBinary = "kube-controller-manager"
	kubectlBinary           = "kubectl"
)

// assetsDir picks the directory holding the control-plane binaries: the
// explicit option, else $KUBEBUILDER_ASSETS, else bin/k8s under the
// repository root, found by walking up from wd to the directory holding
// go.work.
func assetsDir(explicit string, getenv func(string) string, wd string) (string, error) {
	if explicit != "" {
		return explicit, nil
	}
	if env := getenv("KUBEBUILDER_ASSETS"); env != "" {
		return env, nil
	}
	root, err := repoRoot(wd)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "bin", "k8s"), nil
}

// repoRoot walks up from dir to the first directory that holds go.work.
func repoRoot(dir string) (string, error) {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("finding the repository root (go.work) above %s: not found; set KUBEBUILDER_ASSETS or Options.AssetsDir", dir)
		}
		d = parent
	}
}

// checkAssets fails with ErrAssetsMissing, naming every missing binary,
// unless dir holds each of names as an executable file.
func checkAssets(dir string, names ...string) error {
	var missing []string
	for _, n := range names {
		fi, err := os.Stat(filepath.Join(dir, n))
		if err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("looking for %s in %s: %w", strings.Join(missing, ", "), dir, ErrAssetsMissing)
	}
	return nil
}
