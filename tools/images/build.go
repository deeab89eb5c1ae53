package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The non-root user every image runs as: distroless' "nonroot".
const (
	uid     = 65532
	homeDir = "home/nonroot"
	binDir  = "usr/local/bin"
)

// spec is what one image is made of.
type spec struct {
	Name     string            // binary and image name, e.g. tenant-operator
	Repo     string            // e.g. ghcr.io/kubetenant/tenant-operator
	Tag      string            // e.g. v1.2.3 or a git describe string
	Binaries map[string]string // platform ("linux/amd64") → static binary
	Labels   map[string]string // org.opencontainers.image.*
	Created  time.Time         // the commit's time: the same commit, the same bytes
}

// file is one entry of a layer.
type file struct {
	name string
	mode int64
	uid  int
	dir  bool
	data []byte
}

// layerOf makes a reproducible layer: entries sorted by name, every time
// the commit's, owners numeric, no user or group names.
func layerOf(files []file, created time.Time) (v1.Layer, error) {
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, Uid: f.uid, Gid: f.uid, ModTime: created, Format: tar.FormatPAX}
		if f.dir {
			h.Typeflag, h.Name = tar.TypeDir, f.name+"/"
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.data))
		}
		// PAX records would carry access and change times; none are set.
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if !f.dir {
			if _, err := tw.Write(f.data); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
		tarball.WithMediaType(types.OCILayer))
}

// baseFiles is the image's base, built from nothing: the non-root user's
// passwd and group entries, its home, and /tmp. No shell, no package
// manager, no CA file: the binaries embed Mozilla's roots as a fallback
// (golang.org/x/crypto/x509roots/fallback, ADR 0122).
func baseFiles() []file {
	return []file{
		{name: "etc", mode: 0o755, dir: true},
		{name: "etc/passwd", mode: 0o644, data: []byte(fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/%s:/sbin/nologin\n", uid, uid, homeDir))},
		{name: "etc/group", mode: 0o644, data: []byte(fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", uid))},
		{name: "home", mode: 0o755, dir: true},
		{name: homeDir, mode: 0o700, uid: uid, dir: true},
		{name: "tmp", mode: 0o1777, dir: true},
		{name: "usr", mode: 0o755, dir: true},
		{name: "usr/local", mode: 0o755, dir: true},
		{name: binDir, mode: 0o755, dir: true},
	}
}

// platformImage builds the image of one platform.
func platformImage(s spec, platform, binary string) (v1.Image, error) {
	osName, arch, ok := strings.Cut(platform, "/")
	if !ok {
		return nil, fmt.Errorf("platform %q: want os/arch", platform)
	}
	data, err := os.ReadFile(binary)
	if err != nil {
		return nil, err
	}
	base, err := layerOf(baseFiles(), s.Created)
	if err != nil {
		return nil, err
	}
	app, err := layerOf([]file{{name: path.Join(binDir, s.Name), mode: 0o755, data: data}}, s.Created)
	if err != nil {
		return nil, err
	}
	entry := "/" + path.Join(binDir, s.Name)
	cfg := &v1.ConfigFile{
		Architecture: arch,
		OS:           osName,
		Created:      v1.Time{Time: s.Created},
		Config: v1.Config{
			User:       fmt.Sprintf("%d:%d", uid, uid),
			Entrypoint: []string{entry},
			WorkingDir: "/" + homeDir,
			Env:        []string{"PATH=/" + binDir, "HOME=/" + homeDir},
			Labels:     s.Labels,
		},
	}
	if arch == "arm64" {
		cfg.Variant = "v8"
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, err
	}
	return mutate.Append(img,
		mutate.Addendum{Layer: base, History: v1.History{Created: v1.Time{Time: s.Created}, CreatedBy: "kubetenant base: nonroot user, no shell", Comment: "tools/images"}},
		mutate.Addendum{Layer: app, History: v1.History{Created: v1.Time{Time: s.Created}, CreatedBy: "COPY " + s.Name + " " + entry, Comment: "tools/images"}},
	)
}

// build writes the image's OCI layout into dir: one image index of every
// platform, tagged s.Tag. It returns the index's digest.
func build(s spec, dir string) (v1.Hash, error) {
	platforms := make([]string, 0, len(s.Binaries))
	for p := range s.Binaries {
		platforms = append(platforms, p)
	}
	sort.Strings(platforms)
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	var adds []mutate.IndexAddendum
	for _, p := range platforms {
		img, err := platformImage(s, p, s.Binaries[p])
		if err != nil {
			return v1.Hash{}, fmt.Errorf("%s %s: %w", s.Name, p, err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			return v1.Hash{}, err
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			Platform: &v1.Platform{OS: cf.OS, Architecture: cf.Architecture, Variant: cf.Variant}}})
	}
	idx = mutate.AppendManifests(idx, adds...)
	idx = mutate.Annotations(idx, s.Labels).(v1.ImageIndex)
	if err := os.RemoveAll(dir); err != nil {
		return v1.Hash{}, err
	}
	p, err := layout.Write(dir, mutate.IndexMediaType(empty.Index, types.OCIImageIndex))
	if err != nil {
		return v1.Hash{}, err
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": s.Tag,
		"io.containerd.image.name":          s.Repo + ":" + s.Tag,
	})); err != nil {
		return v1.Hash{}, err
	}
	return idx.Digest()
}
