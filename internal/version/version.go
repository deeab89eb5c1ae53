// Package version says which build of a kubetenant binary is running: the
// release version (a vX.Y.Z tag, or `git describe --tags --always --dirty`
// for an untagged build), the commit and the commit's date. The date is the
// commit's, never the build's, so that one commit always builds the same
// bytes (ADR 0121).
//
// `make build` and the release set the values with
//
//	-ldflags "-X <this package>.version=... -X <this package>.commit=... -X <this package>.date=..."
//
// A build without them (`go install ...@vX.Y.Z`, `go build`) falls back to
// what the Go toolchain records in the binary: the module version and, when
// the build had VCS stamping, the revision and commit time.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set at link time with -X; empty otherwise.
var (
	version string
	commit  string
	date    string
)

// Unknown stands for a value neither the linker flags nor the build
// information provide.
const Unknown = "unknown"

// Info describes one build.
type Info struct {
	// Version is vX.Y.Z for a release, the `git describe` string for an
	// untagged build, the module version for `go install`, or "(devel)".
	Version string
	// Commit is the full commit hash the binary was built from.
	Commit string
	// Date is the commit's date in RFC 3339, UTC.
	Date string
	// GoVersion is the toolchain that built the binary.
	GoVersion string
}

// Get returns the running binary's build information.
func Get() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return resolve(version, commit, date, bi)
}

// resolve prefers the linker-set values and fills what is missing from the
// build information the toolchain embedded.
func resolve(version, commit, date string, bi *debug.BuildInfo) Info {
	i := Info{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version()}
	if bi != nil {
		if bi.GoVersion != "" {
			i.GoVersion = bi.GoVersion
		}
		if i.Version == "" {
			i.Version = bi.Main.Version
		}
		var modified bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if i.Commit == "" {
					i.Commit = s.Value
				}
			case "vcs.time":
				if i.Date == "" {
					i.Date = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		// A VCS-stamped build of a checkout says (devel); name the commit
		// as git describe --always would, with -dirty when it was modified.
		if (i.Version == "" || i.Version == "(devel)") && i.Commit != "" && version == "" {
			i.Version = short(i.Commit)
			if modified {
				i.Version += "-dirty"
			}
		}
	}
	if i.Version == "" {
		i.Version = "(devel)"
	}
	if i.Commit == "" {
		i.Commit = Unknown
	}
	if i.Date == "" {
		i.Date = Unknown
	}
	return i
}

func short(commit string) string {
	if len(commit) > 7 {
		return commit[:7]
	}
	return commit
}

// String is the one-line form `--version` prints:
// "v1.2.3 (commit 0123abc..., 2026-12-03T08:00:00Z, go1.26.8)".
func (i Info) String() string {
	return fmt.Sprintf("%s (commit %s, %s, %s)", i.Version, i.Commit, i.Date, i.GoVersion)
}

// UserAgent is the HTTP User-Agent of program at this build, as GitHub asks
// API clients to send: "pinbot/v1.2.3 (+https://github.com/kubetenant/kubetenant)".
func (i Info) UserAgent(program string) string {
	return fmt.Sprintf("%s/%s (+https://github.com/kubetenant/kubetenant)", program, i.Version)
}
