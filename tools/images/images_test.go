package main

import (
	"archive/tar"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// The budget of one image, uncompressed (issue 12).
const maxImageBytes = 50 * 1000 * 1000

// env returns a variable `make test-images` sets; the tests read the
// images that target built and cannot run without them.
func env(t *testing.T, k string) string {
	t.Helper()
	v := os.Getenv(k)
	if v == "" {
		t.Fatalf("$%s is not set: run these tests with `make test-images`, which builds the images first", k)
	}
	return v
}

var names = []string{"tenant-operator", "pinbot"}

// TestImages reads the layouts `make images` wrote.
func TestImages(t *testing.T) {
	dir, commit, version := env(t, "IMAGES_DIR"), env(t, "IMAGE_COMMIT"), env(t, "IMAGE_VERSION")
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			idx, err := layoutIndex(p)
			if err != nil {
				t.Fatal(err)
			}
			top, err := os.ReadFile(filepath.Join(p, "index.json"))
			if err != nil {
				t.Fatal(err)
			}
			var layoutIndex v1.IndexManifest
			if err := json.Unmarshal(top, &layoutIndex); err != nil {
				t.Fatal(err)
			}
			if len(layoutIndex.Manifests) != 1 || layoutIndex.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != version {
				t.Errorf("index.json does not name the tag %s:\n%s", version, top)
			}
			m, err := idx.IndexManifest()
			if err != nil {
				t.Fatal(err)
			}
			var platforms []string
			for _, d := range m.Manifests {
				platforms = append(platforms, d.Platform.String())
			}
			slices.Sort(platforms)
			if want := []string{"linux/amd64", "linux/arm64/v8"}; !slices.Equal(platforms, want) {
				t.Errorf("platforms %v, want %v", platforms, want)
			}
			if m.Annotations["org.opencontainers.image.licenses"] != "Apache-2.0" || m.Annotations["org.opencontainers.image.revision"] != commit {
				t.Errorf("index annotations %v: want the licence and revision %s", m.Annotations, commit)
			}
			for _, d := range m.Manifests {
				img, err := idx.Image(d.Digest)
				if err != nil {
					t.Fatal(err)
				}
				checkImage(t, name, d.Platform.String(), img, commit, version)
			}
			checkSBOM(t, filepath.Join(dir, name+".spdx.json"), name, idx)
		})
	}
}

func checkImage(t *testing.T, name, platform string, img v1.Image, commit, version string) {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if c.User != "65532:65532" {
		t.Errorf("%s: user %q, want 65532:65532 (non-root)", platform, c.User)
	}
	if want := []string{"/usr/local/bin/" + name}; !slices.Equal(c.Entrypoint, want) || len(c.Cmd) != 0 {
		t.Errorf("%s: entrypoint %q cmd %q, want %q and no cmd", platform, c.Entrypoint, c.Cmd, want)
	}
	for k, want := range map[string]string{
		"org.opencontainers.image.licenses": "Apache-2.0",
		"org.opencontainers.image.revision": commit,
		"org.opencontainers.image.version":  version,
		"org.opencontainers.image.source":   "https://github.com/kubetenant/kubetenant",
	} {
		if c.Labels[k] != want {
			t.Errorf("%s: label %s = %q, want %q", platform, k, c.Labels[k], want)
		}
	}
	if c.Labels["org.opencontainers.image.created"] == "" || cf.Created.IsZero() {
		t.Errorf("%s: no creation time (want the commit's)", platform)
	}

	// The file system: no shell, no package manager, the binary, the size.
	var size int64
	files := map[string]*tar.Header{}
	var binary []byte
	tr := tar.NewReader(mutate.Extract(img))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		files["/"+strings.TrimSuffix(h.Name, "/")] = h
		size += h.Size
		if h.Name == "usr/local/bin/"+name && strings.HasPrefix(platform, "linux/amd64") {
			if binary, err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, bad := range []string{"/bin/sh", "/bin/bash", "/bin/busybox", "/usr/bin/sh", "/sbin/apk", "/usr/bin/apt", "/usr/bin/dpkg"} {
		if _, ok := files[bad]; ok {
			t.Errorf("%s: %s is in the image", platform, bad)
		}
	}
	if h := files["/usr/local/bin/"+name]; h == nil || h.Mode&0o111 == 0 {
		t.Errorf("%s: no executable /usr/local/bin/%s", platform, name)
	}
	if h := files["/etc/passwd"]; h == nil {
		t.Errorf("%s: no /etc/passwd naming the non-root user", platform)
	}
	if size > maxImageBytes {
		t.Errorf("%s: %d bytes uncompressed, over the %d budget", platform, size, maxImageBytes)
	}
	t.Logf("%s %s: %.1f MB uncompressed, %d files", name, platform, float64(size)/1e6, len(files))

	if binary != nil {
		// The amd64 binary runs here: it must say which commit it is.
		exe := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(exe, binary, 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(exe, "--version").CombinedOutput()
		if err != nil || !strings.Contains(string(out), commit) || !strings.Contains(string(out), version) {
			t.Errorf("%s --version from the image: %v\n%s\nwant version %s and commit %s", name, err, out, version, commit)
		}
	} else if strings.HasPrefix(platform, "linux/amd64") {
		t.Errorf("%s: the binary was not found in the layers", platform)
	}
}

// checkSBOM reads the SPDX document beside the image.
func checkSBOM(t *testing.T, path, name string, idx v1.ImageIndex) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc spdxDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	d, _ := idx.Digest()
	if doc.SPDXVersion != "SPDX-2.3" || len(doc.Packages) < 10 {
		t.Fatalf("%s: %s with %d packages", path, doc.SPDXVersion, len(doc.Packages))
	}
	if doc.Packages[0].Checksums[0].Value != d.Hex {
		t.Errorf("%s describes %s, the image is %s", path, doc.Packages[0].Checksums[0].Value, d.Hex)
	}
	want := map[string]string{"tenant-operator": "sigs.k8s.io/controller-runtime@v0.25.3", "pinbot": "github.com/google/go-github/v60@v60.0.0"}[name]
	found := false
	for _, p := range doc.Packages {
		found = found || p.Name+"@"+p.VersionInfo == want
	}
	if !found {
		t.Errorf("%s does not list %s", path, want)
	}
}

// TestChartsNameTheReleasedImages tags a clone of the committed tree as a
// release would, and checks that the image the release publishes is the
// one each packaged chart deploys by default.
func TestChartsNameTheReleasedImages(t *testing.T) {
	root, helm := env(t, "REPO_ROOT"), env(t, "HELM")
	clone := filepath.Join(t.TempDir(), "repo")
	run := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run(root, "git", "clone", "--quiet", root, clone)
	run(clone, "git", "-c", "user.name=test", "-c", "user.email=test@example.com", "tag", "-a", "v9.8.7", "-m", "v9.8.7")
	refs := strings.Fields(run(clone, "make", "-s", "image-refs"))
	charts := strings.Fields(run(clone, "make", "-s", "charts-package", "HELM="+helm, "CHARTS_DIR="+filepath.Join(clone, "out", "charts")))
	if len(refs) != len(names) || len(charts) != len(names) {
		t.Fatalf("image refs %q and charts %q: want one of each per image", refs, charts)
	}
	image := regexp.MustCompile(`(?m)^\s*image: "?([^"\s]+)"?\s*$`)
	for i, name := range names {
		if want := "ghcr.io/kubetenant/" + name + ":v9.8.7"; refs[i] != want {
			t.Errorf("release image %s, want %s", refs[i], want)
		}
		if filepath.Base(charts[i]) != name+"-9.8.7.tgz" {
			t.Errorf("packaged chart %s, want %s-9.8.7.tgz (version = appVersion = the tag without v)", charts[i], name)
		}
		args := []string{helm, "template", "x", charts[i], "--namespace", "x"}
		if name == "pinbot" { // what the chart requires, nothing about the image
			args = append(args, "--set", "github.appID=1", "--set", "github.privateKey.secretName=k", "--set", "github.webhookSecret.secretName=w")
		}
		rendered := run(clone, args...)
		m := image.FindAllStringSubmatch(rendered, -1)
		if len(m) == 0 {
			t.Fatalf("%s renders no image", charts[i])
		}
		for _, got := range m {
			if got[1] != refs[i] {
				t.Errorf("chart %s deploys %s, the release publishes %s", filepath.Base(charts[i]), got[1], refs[i])
			}
		}
	}
}
