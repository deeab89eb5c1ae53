package pin

import (
	"encoding/json"
	"fmt"
	"strings"
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
func readComposerJSON(name string, data []byte) (parsed, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return parsed{}, jsonError(name, data, err)
	}
	var out []dep
	for _, sec := range []string{"require", "require-dev"} {
		raw, ok := doc[sec]
		if !ok || string(raw) == "null" {
			continue
		}
		var m map[string]string
		if err := json.Unmarshal(raw, &m); err != nil {
			return parsed{}, &ReadError{Path: name, Line: lineOf(data, `"`+sec+`"`), Err: fmt.Errorf("%s: want an object of constraint strings: %w", sec, err)}
		}
		for k, v := range m {
			if isComposerPlatform(k) {
				continue
			}
			out = append(out, dep{eco: Composer, pkg: NormalizeName(Composer, k), section: sec, value: strings.TrimSpace(v)})
		}
	}
	return parsed{deps: out}, nil
}

// readComposerLock reads the installed versions of composer.lock
// ("packages" and "packages-dev"). A development version ("dev-main")
// carries its source reference, so that a new commit is a change.
func readComposerLock(name string, data []byte) (parsed, error) {
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
		return parsed{}, jsonError(name, data, err)
	}
	var out []dep
	for _, p := range append(doc.Packages, doc.PackagesDev...) {
		if strings.TrimSpace(p.Name) == "" || strings.TrimSpace(p.Version) == "" {
			return parsed{}, &ReadError{Path: name, Line: lineOf(data, `"`+p.Name+`"`), Err: fmt.Errorf("package %q needs a name and a version", p.Name)}
		}
		v := p.Version
		if strings.HasPrefix(v, "dev-") || strings.HasSuffix(v, "-dev") {
			v += " " + p.Source.Reference
		}
		out = append(out, dep{eco: Composer, pkg: NormalizeName(Composer, p.Name), value: v, resolved: true})
	}
	return parsed{deps: out}, nil
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
	return v, isPlainVersion(v)
}
