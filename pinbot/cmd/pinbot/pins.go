package main

import (
	"context"
	"fmt"
)

// runPins is not built yet: issue 5 provides it.
func runPins(ctx context.Context, args []string, e env) error {
	return fmt.Errorf("%w: 'pins' is not implemented yet (issue 5)", errUsage)
}
