package composer

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// isComposerPlatform reports Composer's platform packages (php, extensions,
// libraries, the plugin API), which no registry serves.
func isComposerPlatform(n string) bool {
	n = strings.ToLower(n)
	return n == "php" || n == "php-64bit" || n == "hhvm" || n == "composer" || n == "composer-plugin-api" ||
		n == "composer-runtime-api" || strings.HasPrefix(n, "ext-") || strings.HasPrefix(n, "lib-")
}

// readComposerJSON reads the constraints of composer.json's "require" and
// "require-dev" as written ("1.2.3", "^2.0", "~1.4 || ^2.0"); platform
// packages are skipped.
func readComposerJSON(name string, data []byte) (manifest.Parsed, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return manifest.Parsed{}, manifest.JSONError(name, data, err)
	}
	var out []manifest.Dep
	for _, sec := range []string{"require", "require-dev"} {
		raw, ok := doc[sec]
		if !ok || string(raw) == "null" {
			continue
		}
		var m map[string]string
		if err := json.Unmarshal(raw, &m); err != nil {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, `"`+sec+`"`), Err: fmt.Errorf("%s: want an object of constraint strings: %w", sec, err)}
		}
		for k, v := range m {
			if isComposerPlatform(k) {
				continue
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(k), Section: sec, Value: strings.TrimSpace(v)})
		}
	}
	return manifest.Parsed{Deps: out}, nil
}

// readComposerLock reads the installed versions of composer.lock
// ("packages" and "packages-dev"). A development version ("dev-main")
// carries its source reference, so that a new commit is a change.
func readComposerLock(name string, data []byte) (manifest.Parsed, error) {
	type lockPkg struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		Source  struct {
			Reference string `json:"reference"`
		} `json:"source"`
	}
	var doc struct {
		Packages    []lockPkg `json:"packages"`
		PackagesDev []lockPkg `json:"packages-dev"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return manifest.Parsed{}, manifest.JSONError(name, data, err)
	}
	var out []manifest.Dep
	for _, p := range append(doc.Packages, doc.PackagesDev...) {
		if strings.TrimSpace(p.Name) == "" || strings.TrimSpace(p.Version) == "" {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, `"`+p.Name+`"`), Err: fmt.Errorf("package %q needs a name and a version", p.Name)}
		}
		v := p.Version
		if strings.HasPrefix(v, "dev-") || strings.HasSuffix(v, "-dev") {
			v += " " + p.Source.Reference
		}
		out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(p.Name), Value: v, Resolved: true})
	}
	return manifest.Parsed{Deps: out}, nil
}

// composerExact is Composer's rule: "1.2.3", "v1.2.3", "=1.2.3" and
// "==1.2.3" are exact; "^", "~", wildcards, ranges and alternatives admit
// others.
func composerExact(v string) (string, bool) {
	v = strings.TrimSpace(v)
	for _, op := range []string{"==", "="} {
		if strings.HasPrefix(v, op) {
			v = strings.TrimSpace(v[len(op):])
			break
		}
	}
	return v, manifest.IsPlainVersion(v)
}
