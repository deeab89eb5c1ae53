package pin

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
)

// Issue 17, item 6: pip honours a PEP 263 encoding cookie in requirements
// files; under utf-7 "+AAo-" is a newline, so a line that reads as a comment
// is a requirement to pip. pinbot must read such a file as pip does or
// refuse it.
func TestRequirementsEncodingCookie(t *testing.T) {
	tests := []struct {
		name    string
		head    string
		wantErr bool
	}{
		{"utf-7 cookie", "# -*- coding: utf-7 -*-\nkopf==1.40.1\n# +AAo-kopf==1.42.0\n", true},
		{"utf-7 cookie on the second line", "#!/usr/bin/env pip\n# vim: set fileencoding=utf-7 :\nkopf==1.40.1\n", true},
		{"latin-1 cookie", "# coding: latin-1\nkopf==1.40.1\n", true},
		{"utf-8 cookie", "# -*- coding: utf-8 -*-\nkopf==1.40.1\nrequests==2.32.0\n", false},
		{"no cookie", "kopf==1.40.1\nrequests==2.32.0\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DiffFiles([]FilePair{{Path: "requirements.txt", Base: []byte("kopf==1.40.1\nrequests==2.31.0\n"), Head: []byte(tt.head)}})
			if tt.wantErr {
				var re *ReadError
				if !errors.As(err, &re) || re.Path != "requirements.txt" || !strings.Contains(err.Error(), "encoding") {
					t.Errorf("error %v, want a *ReadError about the encoding of requirements.txt", err)
				}
			} else if err != nil {
				t.Errorf("unexpected error %v", err)
			}
		})
	}
}

// Issue 17, item 3: encoding/json (and go-toml) match struct keys without
// regard to case, npm, pip, uv and Poetry do not. A lock entry with both
// "version" and "Version" must not be read as the one the tool ignores:
// keys that differ only in case are a read error.
func TestLockKeysDifferingInCase(t *testing.T) {
	tests := []struct {
		path, base, head string
	}{
		{
			"package-lock.json",
			`{"lockfileVersion": 3, "packages": {"node_modules/left-pad": {"version": "1.3.0"}}}`,
			`{"lockfileVersion": 3, "packages": {"node_modules/left-pad": {"version": "1.4.0", "Version": "1.3.0"}}}`,
		},
		{
			"package-lock.json",
			`{"lockfileVersion": 3, "packages": {"node_modules/left-pad": {"version": "1.3.0"}}}`,
			`{"lockfileVersion": 3, "packages": {"node_modules/left-pad": {"VERSION": "1.3.0"}}}`,
		},
		{
			"Pipfile.lock",
			`{"default": {"kopf": {"version": "==1.40.1"}}, "develop": {}}`,
			`{"default": {"kopf": {"version": "==1.42.0", "Version": "==1.40.1"}}, "develop": {}}`,
		},
		{
			"uv.lock",
			"version = 1\n[[package]]\nname = \"kopf\"\nversion = \"1.40.1\"\n",
			"version = 1\n[[package]]\nname = \"kopf\"\nversion = \"1.42.0\"\nVersion = \"1.40.1\"\n",
		},
		{
			"poetry.lock",
			"[[package]]\nname = \"kopf\"\nversion = \"1.40.1\"\n",
			"[[package]]\nname = \"kopf\"\nVersion = \"1.40.1\"\nversion = \"1.42.0\"\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			changes, err := DiffFiles([]FilePair{{Path: tt.path, Base: []byte(tt.base), Head: []byte(tt.head)}})
			var re *ReadError
			if !errors.As(err, &re) || re.Path != tt.path || !strings.Contains(err.Error(), "case") {
				t.Errorf("changes %v, error %v; want a *ReadError about keys differing in case", changes, err)
			}
		})
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Issue 17, robustness: manifests are read up to a bound of 64 MiB (real
// package-lock files exceed 20 MB) with memory linear in their size, and a
// larger file is a read error.
func TestManifestSizeBoundAndLinearMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a few hundred megabytes")
	}
	// gen returns a requirements file of about size bytes: many short
	// lines, or one entry continued over many lines (hash-pinned entries
	// look like this).
	gen := map[string]func(size int) []byte{
		"many lines": func(size int) []byte {
			var b strings.Builder
			for i := 0; b.Len() < size; i++ {
				fmt.Fprintf(&b, "package-%d==1.0.%d\n", i, i)
			}
			return []byte(b.String())
		},
		"one long continued line": func(size int) []byte {
			var b strings.Builder
			b.WriteString("kopf==1.40.1 \\\n")
			for b.Len() < size {
				b.WriteString("    --hash=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef \\\n")
			}
			b.WriteString("\n")
			return []byte(b.String())
		},
	}
	for name, gen := range gen {
		t.Run(name, func(t *testing.T) {
			measure := func(size int) uint64 {
				head := gen(size)
				var err error
				n := allocated(func() {
					_, err = DiffFiles([]FilePair{{Path: "requirements.txt", Base: []byte("kopf==1.40.1\n"), Head: head}})
				})
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			// Linear: twice the input allocates about twice as much, not
			// four times (allocation counts are deterministic, unlike time).
			small, large := measure(2<<20), measure(4<<20)
			if ratio := float64(large) / float64(small); ratio > 2.5 {
				t.Errorf("2 MiB allocated %d bytes, 4 MiB %d: ratio %.2f, want at most 2.5 (linear)", small, large, ratio)
			}
			if name == "one long continued line" {
				if n := measure(8 << 20); n > 16*(8<<20) {
					t.Errorf("an 8 MiB entry allocated %d bytes, more than 16 times its size", n)
				}
			}
		})
	}

	const bound = 64 << 20 // the stated bound, MaxManifestSize
	big := make([]byte, bound+1)
	for i := range big {
		big[i] = '\n'
	}
	_, err := DiffFiles([]FilePair{{Path: "requirements.txt", Base: []byte("kopf==1.40.1\n"), Head: big}})
	var re *ReadError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a file over MaxManifestSize: error %v, want a *ReadError saying it is too large", err)
	}
	_, err = Diff(fstest.MapFS{}, fstest.MapFS{"requirements.txt": {Data: big}})
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Diff of a file over MaxManifestSize: error %v, want a *ReadError saying it is too large", err)
	}
}

// Issue 17, item 7: the common lock formats are read, not refused: yarn.lock
// v1 and berry, pnpm-lock.yaml, and Helm v1 requirements.yaml and
// requirements.lock.
func TestCommonLockFormatsAreRead(t *testing.T) {
	tests := []struct {
		name, path, base, head string
		want                   Change
	}{
		{
			"yarn v1", "web/yarn.lock",
			"# yarn lockfile v1\n\n\nleft-pad@^1.3.0:\n  version \"1.3.0\"\n  resolved \"https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz\"\n",
			"# yarn lockfile v1\n\n\n\"left-pad@^1.3.0\", left-pad@^1.4.0:\n  version \"1.4.0\"\n  resolved \"https://registry.yarnpkg.com/left-pad/-/left-pad-1.4.0.tgz\"\n",
			Change{Ecosystem: NPM, Package: "left-pad", Manifest: "web/yarn.lock", Old: "1.3.0", New: "1.4.0", Resolved: true},
		},
		{
			"yarn berry", "yarn.lock",
			"__metadata:\n  version: 8\n\n\"left-pad@npm:^1.3.0\":\n  version: 1.3.0\n  resolution: \"left-pad@npm:1.3.0\"\n",
			"__metadata:\n  version: 8\n\n\"left-pad@npm:^1.3.0\":\n  version: 1.4.0\n  resolution: \"left-pad@npm:1.4.0\"\n",
			Change{Ecosystem: NPM, Package: "left-pad", Manifest: "yarn.lock", Old: "1.3.0", New: "1.4.0", Resolved: true},
		},
		{
			"pnpm v9", "pnpm-lock.yaml",
			"lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      left-pad:\n        specifier: ^1.3.0\n        version: 1.3.0\npackages:\n  left-pad@1.3.0:\n    resolution: {integrity: sha512-x}\n",
			"lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      left-pad:\n        specifier: ^1.3.0\n        version: 1.4.0\npackages:\n  left-pad@1.4.0:\n    resolution: {integrity: sha512-y}\n",
			Change{Ecosystem: NPM, Package: "left-pad", Manifest: "pnpm-lock.yaml", Old: "1.3.0", New: "1.4.0", Resolved: true},
		},
		{
			"helm v1 requirements", "charts/app/requirements.yaml",
			"dependencies:\n  - name: redis\n    version: 17.0.0\n    repository: https://charts.bitnami.com/bitnami\n",
			"dependencies:\n  - name: redis\n    version: 18.0.0\n    repository: https://charts.bitnami.com/bitnami\n",
			Change{Ecosystem: Helm, Package: "redis", Manifest: "charts/app/requirements.yaml", Old: "17.0.0", New: "18.0.0"},
		},
		{
			"helm v1 requirements.lock", "charts/app/requirements.lock",
			"dependencies:\n- name: redis\n  repository: https://charts.bitnami.com/bitnami\n  version: 17.0.0\ndigest: sha256:aa\ngenerated: \"2026-01-01T00:00:00Z\"\n",
			"dependencies:\n- name: redis\n  repository: https://charts.bitnami.com/bitnami\n  version: 18.0.0\ndigest: sha256:bb\ngenerated: \"2026-02-01T00:00:00Z\"\n",
			Change{Ecosystem: Helm, Package: "redis", Manifest: "charts/app/requirements.lock", Old: "17.0.0", New: "18.0.0", Resolved: true},
		},
		{
			"rye requirements.lock", "requirements.lock",
			"# generated by rye\n# use `rye lock` or `rye sync` to update this lockfile\n#\n-e file:.\nkopf==1.40.1\n    # via app\n",
			"# generated by rye\n# use `rye lock` or `rye sync` to update this lockfile\n#\n-e file:.\nkopf==1.42.0\n    # via app\n",
			Change{Ecosystem: Pip, Package: "kopf", Manifest: "requirements.lock", Old: "==1.40.1", New: "==1.42.0"},
		},
		{
			"rye requirements-dev.lock", "requirements-dev.lock",
			"# generated by rye\nkopf==1.40.1\n",
			"# generated by rye\nkopf==1.42.0\n",
			Change{Ecosystem: Pip, Package: "kopf", Manifest: "requirements-dev.lock", Old: "==1.40.1", New: "==1.42.0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !IsManifest(tt.path) {
				t.Fatalf("IsManifest(%q) = false: the format is not read", tt.path)
			}
			changes, err := DiffFiles([]FilePair{{Path: tt.path, Base: []byte(tt.base), Head: []byte(tt.head)}})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, c := range changes {
				found = found || c == tt.want
			}
			if !found {
				t.Errorf("changes %v, want %v among them", changes, tt.want)
			}
		})
	}
}
