package source

import (
	"context"
	"fmt"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/kubetenant/kubetenant/pinbot/internal/redeliver"
)

// HookDeliveries pages the App's webhook deliveries newest first
// (GET /app/hook/deliveries, App JWT, 100 a page, cursor pagination; the
// list is App-wide and has no since), back to since: it stops at the first
// page that reaches an older delivery, or the last page. It returns the
// deliveries and the pages read.
func HookDeliveries(ctx context.Context, app *github.Client, since time.Time) ([]redeliver.Delivery, int, error) {
	var out []redeliver.Delivery
	opts := &github.ListCursorOptions{PerPage: 100}
	for pages := 1; ; pages++ {
		ds, resp, err := app.Apps.ListHookDeliveries(ctx, opts)
		if err != nil {
			return out, pages, fmt.Errorf("listing the App's webhook deliveries: %w", err)
		}
		done := false
		for _, d := range ds {
			rd := redeliver.Delivery{ID: d.GetID(), GUID: d.GetGUID(), DeliveredAt: d.GetDeliveredAt().Time,
				Redelivery: d.GetRedelivery(), StatusCode: d.GetStatusCode(), Event: d.GetEvent(), Action: d.GetAction()}
			out = append(out, rd)
			done = done || redeliver.Older(rd, since)
		}
		if done || resp.Cursor == "" {
			return out, pages, nil
		}
		opts.Cursor = resp.Cursor
	}
}
