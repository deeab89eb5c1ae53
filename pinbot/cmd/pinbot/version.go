package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/kubetenant/kubetenant/internal/version"
)

// runVersion is `pinbot version` (and `pinbot --version`): the version,
// commit and commit date of this build (ADR 0121).
func runVersion(_ context.Context, args []string, e env) error {
	fs := flag.NewFlagSet("pinbot version", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	_, err := fmt.Fprintf(e.stdout, "pinbot %s\n", version.Get())
	return err
}
