// Command images builds kubetenant's container images as OCI image layouts,
// without a Docker daemon and offline, and pushes them (ADR 0122):
//
//	images build --name tenant-operator --repo ghcr.io/kubetenant/tenant-operator --tag v1.2.3 \
//	    --version v1.2.3 --revision <commit> --created 2026-12-03T08:00:00Z \
//	    --binary linux/amd64=out/bin/linux_amd64/tenant-operator --binary linux/arm64=... --out out/images
//	images push --layout out/images/tenant-operator --ref ghcr.io/kubetenant/tenant-operator:v1.2.3
//
// build writes out/images/<name> (an OCI layout holding one image index of
// every platform) and out/images/<name>.spdx.json, and prints the index
// digest. The same commit gives the same bytes.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "images:", err)
		os.Exit(1)
	}
}

// multi is a repeatable platform=path flag.
type multi map[string]string

func (m multi) String() string { return fmt.Sprint(map[string]string(m)) }
func (m multi) Set(v string) error {
	p, path, ok := strings.Cut(v, "=")
	if !ok || p == "" || path == "" {
		return fmt.Errorf("%q: want os/arch=path", v)
	}
	m[p] = path
	return nil
}

func run(args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: images build|push [flags]")
	}
	switch args[0] {
	case "build":
		return runBuild(args[1:], out)
	case "push":
		return runPush(args[1:], out)
	}
	return fmt.Errorf("unknown command %q: want build or push", args[0])
}

func runBuild(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	var s spec
	bins := multi{}
	fs.StringVar(&s.Name, "name", "", "image and binary name")
	fs.StringVar(&s.Repo, "repo", "", "repository the image is published to")
	fs.StringVar(&s.Tag, "tag", "", "tag (vX.Y.Z for a release, else the git describe string)")
	version := fs.String("version", "", "version (org.opencontainers.image.version)")
	revision := fs.String("revision", "", "commit (org.opencontainers.image.revision)")
	created := fs.String("created", "", "commit date, RFC 3339 (org.opencontainers.image.created, every file's time)")
	source := fs.String("source", "https://github.com/kubetenant/kubetenant", "source repository URL")
	outDir := fs.String("out", "out/images", "directory of the layouts")
	fs.Var(bins, "binary", "os/arch=path of a static binary (repeat per platform)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if s.Name == "" || s.Repo == "" || s.Tag == "" || *version == "" || *revision == "" || len(bins) == 0 {
		return errors.New("build needs --name, --repo, --tag, --version, --revision and at least one --binary")
	}
	t, err := time.Parse(time.RFC3339, *created)
	if err != nil {
		return fmt.Errorf("--created: %w", err)
	}
	s.Created, s.Binaries = t.UTC(), bins
	s.Labels = map[string]string{
		"org.opencontainers.image.title":    s.Name,
		"org.opencontainers.image.source":   *source,
		"org.opencontainers.image.url":      *source,
		"org.opencontainers.image.version":  *version,
		"org.opencontainers.image.revision": *revision,
		"org.opencontainers.image.created":  s.Created.Format(time.RFC3339),
		"org.opencontainers.image.licenses": "Apache-2.0",
		"org.opencontainers.image.vendor":   "kubetenant",
	}
	dir := filepath.Join(*outDir, s.Name)
	digest, err := build(s, dir)
	if err != nil {
		return err
	}
	// Every platform's binary is built from one module graph: the first
	// platform's module list stands for the image.
	first := ""
	for p := range bins {
		if first == "" || p < first {
			first = p
		}
	}
	if err := writeSBOM(s, bins[first], filepath.Join(*outDir, s.Name+".spdx.json"), digest.String()); err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%s %s:%s %s\n", s.Name, s.Repo, s.Tag, digest)
	return err
}

// runPush pushes the image index of a layout to a registry, with the
// credentials of the Docker config (docker/login-action writes them), and
// prints the pushed digest for cosign.
func runPush(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("push", flag.ContinueOnError)
	dir := fs.String("layout", "", "OCI layout written by build")
	ref := fs.String("ref", "", "repository:tag to push to")
	if err := fs.Parse(args); err != nil {
		return err
	}
	tag, err := name.NewTag(*ref, name.StrictValidation)
	if err != nil {
		return fmt.Errorf("--ref: %w", err)
	}
	idx, err := layoutIndex(*dir)
	if err != nil {
		return err
	}
	if err := remote.WriteIndex(tag, idx, remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return err
	}
	d, err := idx.Digest()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "%s@%s\n", tag.Context(), d)
	return err
}

// layoutIndex returns the one image index a layout written by build holds.
func layoutIndex(dir string) (v1.ImageIndex, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, err
	}
	top, err := p.ImageIndex()
	if err != nil {
		return nil, err
	}
	m, err := top.IndexManifest()
	if err != nil {
		return nil, err
	}
	if len(m.Manifests) != 1 {
		return nil, fmt.Errorf("%s holds %d manifests, want the one image index build writes", dir, len(m.Manifests))
	}
	return top.ImageIndex(m.Manifests[0].Digest)
}
