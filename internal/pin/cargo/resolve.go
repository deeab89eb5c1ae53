package cargo

import (
	"errors"
	"path"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Resolution follows Cargo's
// (https://doc.rust-lang.org/cargo/reference/specifying-dependencies.html,
// https://doc.rust-lang.org/cargo/reference/resolver.html): a requirement
// in Cargo.toml is a range ("1.0.100" is "^1.0.100"), and what is built is
// the version the workspace's Cargo.lock (the nearest one above the
// manifest) locks, when it satisfies the requirement. So a requirement's
// effective value is "=<locked version>" when the lock settles it, and the
// requirement itself (a range, which no exact pin accepts) when there is no
// lock or the lock no longer satisfies it (Cargo would resolve again:
// issue 23, ADR 0253).

// resolveCrates is the Cargo Resolver: one module per Cargo.toml.
func resolveCrates(files map[string][]byte) ([]manifest.Module, error) {
	locks := map[string]map[string][]string{} // Cargo.lock path -> crate -> versions
	var errs []error
	var manifests []string
	for p, data := range files {
		switch path.Base(p) {
		case "Cargo.lock":
			pr, err := readCargoLock(p, data)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			m := map[string][]string{}
			for _, d := range pr.Deps {
				m[d.Pkg] = append(m[d.Pkg], d.Value)
			}
			locks[p] = m
		case "Cargo.toml":
			manifests = append(manifests, p)
		}
	}
	sort.Strings(manifests)
	var out []manifest.Module
	for _, p := range manifests {
		pr, err := readCargoToml(p, files[p])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		m := manifest.Module{Path: p, Inputs: []string{p}}
		lockPath := nearestLock(p, files)
		lock := locks[lockPath]
		if lockPath != "" {
			m.Inputs = append(m.Inputs, lockPath)
		}
		for _, d := range pr.Deps {
			d.Value = effective(d.Value, lock[d.Pkg], lockPath != "")
			m.Deps = append(m.Deps, d)
		}
		out = append(out, m)
	}
	return out, errors.Join(errs...)
}

func nearestLock(manifestPath string, files map[string][]byte) string {
	for d := path.Dir(manifestPath); ; d = path.Dir(d) {
		p := path.Join(d, "Cargo.lock")
		if _, ok := files[p]; ok {
			return p
		}
		if d == "." || d == "/" {
			return ""
		}
	}
}

// effective is a requirement's effective value given the versions a lock
// holds for the crate.
func effective(req string, locked []string, hasLock bool) string {
	r := strings.TrimSpace(req)
	if strings.HasPrefix(r, "source ") || strings.HasPrefix(r, "patch ") || strings.Contains(r, " replace ") {
		return req // not a registry requirement
	}
	if hasLock {
		var ok []string
		for _, v := range locked {
			if !strings.Contains(v, " ") && satisfies(r, v) {
				ok = append(ok, v)
			}
		}
		if len(ok) == 1 {
			return "=" + ok[0]
		}
	}
	if strings.HasPrefix(r, "=") && !strings.Contains(r, ",") {
		return r
	}
	if r != "" && r[0] >= '0' && r[0] <= '9' {
		return "^" + r // Cargo's default requirement is a caret range
	}
	return r
}

// satisfies reports whether version v meets the Cargo requirement req
// (comma-separated clauses of =, ^, ~, >, >=, <, <=, wildcards; a bare
// version is a caret requirement).
func satisfies(req, v string) bool {
	sv := "v" + v
	if !semver.IsValid(sv) {
		return false
	}
	for _, clause := range strings.Split(req, ",") {
		c := strings.TrimSpace(clause)
		op := ""
		for _, o := range []string{">=", "<=", "=", "^", "~", ">", "<"} {
			if strings.HasPrefix(c, o) {
				op, c = o, strings.TrimSpace(c[len(o):])
				break
			}
		}
		if c == "*" {
			continue
		}
		parts := strings.Split(strings.SplitN(c, "-", 2)[0], ".")
		n := len(parts)
		for i, x := range parts {
			if x == "*" || x == "x" || x == "X" {
				n = i
				if op == "" {
					op = "~wild"
				}
				break
			}
		}
		nums := make([]int, 3)
		for i := 0; i < n && i < 3; i++ {
			x, err := strconv.Atoi(parts[i])
			if err != nil {
				return false
			}
			nums[i] = x
		}
		low := "v" + strings.Join([]string{strconv.Itoa(nums[0]), strconv.Itoa(nums[1]), strconv.Itoa(nums[2])}, ".")
		if n >= 3 {
			if pre := strings.SplitN(c, "-", 2); len(pre) == 2 {
				low += "-" + pre[1]
			}
		}
		upper := func(level int) string { // the next version at level (0 major, 1 minor, 2 patch)
			u := []int{nums[0], nums[1], nums[2]}
			u[level]++
			for i := level + 1; i < 3; i++ {
				u[i] = 0
			}
			return "v" + strconv.Itoa(u[0]) + "." + strconv.Itoa(u[1]) + "." + strconv.Itoa(u[2]) + "-0"
		}
		in := func(lo, hi string) bool {
			return semver.Compare(sv, lo) >= 0 && (hi == "" || semver.Compare(sv, hi) < 0)
		}
		var ok bool
		switch op {
		case "", "^":
			switch {
			case nums[0] > 0 || n == 1:
				ok = in(low, upper(0))
			case nums[1] > 0 || n == 2:
				ok = in(low, upper(1))
			default:
				ok = in(low, upper(2))
			}
		case "~", "~wild":
			switch {
			case n == 0:
				ok = true
			case n == 1:
				ok = in(low, upper(0))
			default:
				ok = in(low, upper(1))
			}
		case "=":
			switch n {
			case 1:
				ok = in(low, upper(0))
			case 2:
				ok = in(low, upper(1))
			default:
				ok = semver.Compare(sv, low) == 0
			}
		case ">":
			ok = semver.Compare(sv, low) > 0
		case ">=":
			ok = semver.Compare(sv, low) >= 0
		case "<":
			ok = semver.Compare(sv, low) < 0
		case "<=":
			ok = semver.Compare(sv, low) <= 0
		}
		if !ok {
			return false
		}
	}
	return true
}

// Line returns the semver-compatible release line of a version or
// requirement ("1" for 1.0.100, "0.25" for 0.25.2, "0.0.3" for 0.0.3), or
// "" when it has none. Cargo keeps one version per line: two lines of a
// crate in one Cargo.lock are two packages as far as a pin is concerned.
func Line(v string) string {
	v = strings.TrimSpace(v)
	if f := strings.Fields(v); len(f) > 0 {
		v = f[0]
	}
	v = strings.TrimSuffix(strings.SplitN(v, ",", 2)[0], ",")
	v = strings.TrimLeft(v, "=^~><")
	parts := strings.Split(strings.SplitN(v, "-", 2)[0], ".")
	nums := []int{}
	for _, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil {
			break
		}
		nums = append(nums, x)
	}
	switch {
	case len(nums) == 0:
		return ""
	case nums[0] > 0:
		return strconv.Itoa(nums[0])
	case len(nums) == 1:
		return ""
	case nums[1] > 0:
		return "0." + strconv.Itoa(nums[1])
	case len(nums) == 2:
		return ""
	}
	return "0.0." + strconv.Itoa(nums[2])
}
