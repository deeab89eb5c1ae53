package main

import (
	"context"
	"fmt"
)

// runServe is not built yet: issue 6 provides it.
func runServe(ctx context.Context, args []string, e env) error {
	return fmt.Errorf("%w: 'serve' is not implemented yet (issue 6)", errUsage)
}
