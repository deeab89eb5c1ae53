package report

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/go-github/v60/github"
)

// Redeliver asks GitHub to send the App's webhook delivery id again
// (POST /app/hook/deliveries/{id}/attempts, App JWT). GitHub answers 202
// and sends it later, with the same guid, flagged as a redelivery.
func Redeliver(ctx context.Context, app *github.Client, id int64) error {
	_, _, err := app.Apps.RedeliverHookDelivery(ctx, id)
	var accepted *github.AcceptedError
	if err != nil && !errors.As(err, &accepted) {
		return fmt.Errorf("redelivering delivery %d: %w", id, err)
	}
	return nil
}
