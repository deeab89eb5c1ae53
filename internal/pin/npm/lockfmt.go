package npm

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"

	"go.yaml.in/yaml/v3"
)

// npmDescriptorName returns the package a yarn descriptor names:
// "left-pad@^1.3.0", "@types/node@npm:^22", "lp@npm:left-pad@1.4.0"
// (an alias: the package after "npm:").
func npmDescriptorName(d string) string {
	d = strings.Trim(strings.TrimSpace(d), `"`)
	if i := strings.Index(d, "@npm:"); i > 0 {
		rest := d[i+len("@npm:"):]
		if j := strings.LastIndexByte(rest, '@'); j > 0 {
			return rest[:j] // an alias to another package
		}
		return d[:i]
	}
	if i := strings.LastIndexByte(d, '@'); i > 0 {
		return d[:i]
	}
	return d
}

// readYarnLock reads the resolved versions of a yarn.lock: the classic v1
// format or berry's YAML (issue 17, item 7). Workspace and link entries
// are skipped.
func readYarnLock(name string, data []byte) (manifest.Parsed, error) {
	if bytes.Contains(data, []byte("\n__metadata:")) || bytes.HasPrefix(data, []byte("__metadata:")) {
		var doc map[string]struct {
			Version    string `yaml:"version"`
			Resolution string `yaml:"resolution"`
		}
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return manifest.Parsed{}, manifest.YAMLError(name, 1, err)
		}
		var out []manifest.Dep
		for key, e := range doc {
			if key == "__metadata" {
				continue
			}
			if strings.Contains(e.Resolution, "@workspace:") || strings.Contains(e.Resolution, "@link:") || strings.Contains(e.Resolution, "@portal:") {
				continue
			}
			pkg := npmDescriptorName(strings.Split(key, ",")[0])
			if e.Resolution != "" {
				pkg = npmDescriptorName(e.Resolution)
			}
			if e.Version == "" {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, key), Err: fmt.Errorf("entry %q has no version", key)}
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(pkg), Value: e.Version, Resolved: true})
		}
		return manifest.Parsed{Deps: out}, nil
	}
	var out []manifest.Dep
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), manifest.MaxManifestSize)
	line, cur, curLine := 0, "", 0
	for sc.Scan() {
		line++
		t := sc.Text()
		switch {
		case strings.TrimSpace(t) == "" || strings.HasPrefix(strings.TrimSpace(t), "#"):
		case !strings.HasPrefix(t, " "):
			if cur != "" {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: curLine, Err: fmt.Errorf("entry %q has no version", cur)}
			}
			cur, curLine = strings.TrimSuffix(strings.TrimSpace(t), ":"), line
		case strings.HasPrefix(t, "  version ") && !strings.HasPrefix(t, "   "):
			if cur == "" {
				return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: line, Err: fmt.Errorf("version outside an entry")}
			}
			v := strings.TrimSpace(strings.TrimPrefix(t, "  version "))
			if u, err := strconv.Unquote(v); err == nil {
				v = u
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(npmDescriptorName(strings.Split(cur, ",")[0])), Value: v, Resolved: true})
			cur = ""
		}
	}
	if err := sc.Err(); err != nil {
		return manifest.Parsed{}, &manifest.ReadError{Path: name, Err: err}
	}
	if cur != "" {
		return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: curLine, Err: fmt.Errorf("entry %q has no version", cur)}
	}
	return manifest.Parsed{Deps: out}, nil
}

// readPnpmLock reads the resolved versions of a pnpm-lock.yaml from its
// packages keys: "left-pad@1.3.0" (v9), "/left-pad@1.3.0" (v6) or
// "/left-pad/1.3.0" (v5), with any peer suffix "(...)" dropped.
func readPnpmLock(name string, data []byte) (manifest.Parsed, error) {
	var doc struct {
		Packages map[string]yaml.Node `yaml:"packages"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return manifest.Parsed{}, manifest.YAMLError(name, 1, err)
	}
	var out []manifest.Dep
	for key := range doc.Packages {
		k := strings.TrimPrefix(key, "/")
		if i := strings.IndexByte(k, '('); i > 0 {
			k = k[:i]
		}
		pkg, ver := "", ""
		if i := strings.LastIndexByte(k, '@'); i > 0 {
			pkg, ver = k[:i], k[i+1:]
		} else if i := strings.LastIndexByte(k, '/'); i > 0 {
			pkg, ver = k[:i], k[i+1:]
		}
		if pkg == "" || ver == "" {
			return manifest.Parsed{}, &manifest.ReadError{Path: name, Line: manifest.LineOf(data, key), Err: fmt.Errorf("package key %q has no name@version", key)}
		}
		out = append(out, manifest.Dep{Eco: Name, Pkg: Normalize(pkg), Value: ver, Resolved: true})
	}
	return manifest.Parsed{Deps: out}, nil
}
