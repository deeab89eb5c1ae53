package main

import (
	"context"
	"fmt"
)

// runVerifyMemory is not built yet: issue 7 provides it.
func runVerifyMemory(ctx context.Context, args []string, e env) error {
	return fmt.Errorf("%w: 'verify-memory' is not implemented yet (issue 7)", errUsage)
}
