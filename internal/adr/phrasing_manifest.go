package adr

import (
	"regexp"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Manifest snippets in the decision are read by the registered readers of
// their formats (snippet.go; issue 35, item 1; ADR 0316, which replaces
// the per-format snippet code of ADR 0263).

var (
	fullSHA    = regexp.MustCompile(`^[0-9a-f]{40}$`)
	mavenExact = regexp.MustCompile(`^[0-9][0-9A-Za-z._-]*$`)
)

func candidate(pkg, ver string, line int) pin.Pin {
	pn := pin.Pin{Package: pkg, Version: ver}
	pn.Source.Line = line
	return pn
}
