package controlplane

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAssetsDir(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.work"), []byte("go 1.26.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(root, "operator", "internal", "x")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	noWork := t.TempDir()

	tests := []struct {
		name     string
		explicit string
		env      string
		wd       string
		want     string
		wantErr  string
	}{
		{name: "explicit wins over env", explicit: "/opt/a", env: "/opt/b", wd: deep, want: "/opt/a"},
		{name: "env wins over repo", env: "/opt/b", wd: deep, want: "/opt/b"},
		{name: "repo bin/k8s found from a subdirectory", wd: deep, want: filepath.Join(root, "bin", "k8s")},
		{name: "repo bin/k8s found from the root", wd: root, want: filepath.Join(root, "bin", "k8s")},
		{name: "no go.work above", wd: noWork, wantErr: "go.work"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "KUBEBUILDER_ASSETS" {
					return tt.env
				}
				return ""
			}
			got, err := assetsDir(tt.explicit, getenv, tt.wd)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("assetsDir() error = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("assetsDir() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("assetsDir() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckAssets(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/true\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("etcd", 0o755)
	write("kubectl", 0o644) // present but not executable
	if err := os.Mkdir(filepath.Join(dir, "kube-controller-manager"), 0o755); err != nil {
		t.Fatal(err)
	}

	if err := checkAssets(dir, "etcd"); err != nil {
		t.Errorf("checkAssets(etcd) = %v, want nil", err)
	}
	err := checkAssets(dir, "etcd", "kube-apiserver", "kubectl", "kube-controller-manager")
	if !errors.Is(err, ErrAssetsMissing) {
		t.Fatalf("checkAssets() = %v, want ErrAssetsMissing", err)
	}
	for _, want := range []string{"kube-apiserver, kubectl, kube-controller-manager", dir, "make test-assets"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("checkAssets() error %q does not mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "etcd,") {
		t.Errorf("checkAssets() error %q names etcd, which is present", err)
	}
}

func TestStartWithoutAssetsFailsClearly(t *testing.T) {
	cp, err := Start(t.Context(), Options{AssetsDir: t.TempDir()})
	if err == nil {
		cp.Stop()
		t.Fatal("Start() with an empty assets directory succeeded")
	}
	if !errors.Is(err, ErrAssetsMissing) {
		t.Errorf("Start() error = %v, want ErrAssetsMissing", err)
	}
}

func TestTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, []byte("a\nb\nc\nd\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("c\nd", tail(path, 2)); diff != "" {
		t.Errorf("tail() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("a\nb\nc\nd", tail(path, 10)); diff != "" {
		t.Errorf("tail() mismatch (-want +got):\n%s", diff)
	}
	if got := tail(filepath.Join(t.TempDir(), "missing"), 2); !strings.Contains(got, "cannot read log") {
		t.Errorf("tail(missing) = %q, want a note", got)
	}
}
