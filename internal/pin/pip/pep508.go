package pip

import (
	"fmt"
	"regexp"
	"strings"
)

// Requirement is a manifest.Parsed PEP 508 dependency specification such as
// `kopf[full-auth]==1.40.1; python_version >= "3.10"`.
type Requirement struct {
	// Name is the PEP 503-normalised project name.
	Name string
	// Extras are the requested extras, as written.
	Extras []string
	// Specifier is the version specifier with spaces removed ("==1.40.1",
	// ">=1.0,<2"), or "@ URL" for a direct reference, or "" for any version.
	Specifier string
	// Marker is the environment marker with surrounding space trimmed.
	Marker string
}

var (
	pep508NameRE = regexp.MustCompile(`^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)`)
	pep503SepRE  = regexp.MustCompile(`[-_.]+`)
)

// ParseRequirement parses one PEP 508 requirement string.
func ParseRequirement(s string) (Requirement, error) {
	orig := s
	s = strings.TrimSpace(s)
	name := pep508NameRE.FindString(s)
	if name == "" {
		return Requirement{}, fmt.Errorf("invalid requirement %q: no project name", orig)
	}
	r := Requirement{Name: Normalize(name)}
	rest := strings.TrimSpace(s[len(name):])
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return Requirement{}, fmt.Errorf("invalid requirement %q: unclosed extras", orig)
		}
		for _, e := range strings.Split(rest[1:end], ",") {
			e = strings.TrimSpace(e)
			if e == "" {
				continue
			}
			if !pep508NameRE.MatchString(e) || pep508NameRE.FindString(e) != e {
				return Requirement{}, fmt.Errorf("invalid requirement %q: bad extra %q", orig, e)
			}
			r.Extras = append(r.Extras, e)
		}
		rest = strings.TrimSpace(rest[end+1:])
	}
	if strings.HasPrefix(rest, "@") {
		// A direct reference: the URL ends at whitespace followed by ";".
		url := strings.TrimSpace(rest[1:])
		marker := ""
		if i := strings.Index(url, " ;"); i >= 0 {
			url, marker = strings.TrimSpace(url[:i]), strings.TrimSpace(url[i+2:])
		} else if i := strings.Index(url, "; "); i >= 0 && !strings.Contains(url[:i], " ") {
			url, marker = strings.TrimSpace(url[:i]), strings.TrimSpace(url[i+1:])
		}
		if url == "" || strings.ContainsAny(url, " \t") {
			return Requirement{}, fmt.Errorf("invalid requirement %q: bad URL", orig)
		}
		r.Specifier, r.Marker = "@ "+url, marker
		return r, nil
	}
	spec := rest
	if i := strings.IndexByte(rest, ';'); i >= 0 {
		spec, r.Marker = rest[:i], strings.TrimSpace(rest[i+1:])
		if r.Marker == "" {
			return Requirement{}, fmt.Errorf("invalid requirement %q: empty marker", orig)
		}
	}
	spec = strings.TrimSpace(spec)
	if strings.HasPrefix(spec, "(") {
		if !strings.HasSuffix(spec, ")") {
			return Requirement{}, fmt.Errorf("invalid requirement %q: unclosed parenthesis", orig)
		}
		spec = spec[1 : len(spec)-1]
	}
	spec = strings.Join(strings.Fields(spec), "")
	if _, err := ParseSpecifiers(spec); err != nil {
		return Requirement{}, fmt.Errorf("invalid requirement %q: %w", orig, err)
	}
	r.Specifier = spec
	return r, nil
}
