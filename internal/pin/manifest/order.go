package manifest

import (
	"cmp"
	"fmt"
	"strings"

	"golang.org/x/mod/semver"
)

// SemverOrder orders two Semantic Versioning 2.0.0 versions (npm, Cargo,
// Go modules, GitHub Actions tags), a leading "v" or "=" optional:
// pre-releases before their release, numeric identifiers numerically,
// build metadata ignored. "v4" and "v4.1" are read as v4.0.0 and v4.1.0,
// as Go and Actions tags use them (golang.org/x/mod/semver).
func SemverOrder(a, b string) (int, error) {
	va, err := semverOf(a)
	if err != nil {
		return 0, err
	}
	vb, err := semverOf(b)
	if err != nil {
		return 0, err
	}
	return semver.Compare(va, vb), nil
}

func semverOf(s string) (string, error) {
	v := "v" + strings.TrimLeft(strings.TrimSpace(s), "=v")
	if !semver.IsValid(v) {
		return "", fmt.Errorf("%q is not a semantic version", s)
	}
	return v, nil
}

// CompareDigits orders two unsigned decimal numbers written as digit
// strings of any length, leading zeros ignored ("" is 0): the numbers of
// version orders, which may exceed any integer type.
func CompareDigits(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		return cmp.Compare(len(a), len(b))
	}
	return strings.Compare(a, b)
}
