package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kubetenant/kubetenant/internal/version"
)

// newVersion is `pinbot version` (the same line as `pinbot --version`): the
// version, commit and commit date of this build (ADR 0121).
func newVersion(e env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and commit date",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(e.stdout, "pinbot %s\n", version.Get())
			return err
		},
	}
}
