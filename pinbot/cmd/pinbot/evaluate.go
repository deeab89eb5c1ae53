package main

import (
	"context"
	"fmt"
)

// runEvaluate is not built yet: issue 5 provides it.
func runEvaluate(ctx context.Context, args []string, e env) error {
	return fmt.Errorf("%w: 'evaluate' is not implemented yet (issue 5)", errUsage)
}
