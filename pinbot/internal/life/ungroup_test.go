package life

import (
	"testing"

	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
)

// TestUngroup: the sync pull request is asked for at once only by a bot's
// blocked group whose comment pinbot has just written.
func TestUngroup(t *testing.T) {
	group := enforce.Result{Verdict: enforce.Block, Bot: true, Shape: enforce.ShapeGrouped}
	for _, tt := range []struct {
		name    string
		modify  func(*enforce.Result)
		comment string
		want    bool
	}{
		{"bot group, comment created", func(*enforce.Result) {}, "created", true},
		{"bot group, new head", func(*enforce.Result) {}, "updated", true},
		{"bot group, comment unchanged", func(*enforce.Result) {}, "unchanged", false},
		{"single bump", func(r *enforce.Result) { r.Shape = enforce.ShapeSingle }, "created", false},
		{"lock-file maintenance", func(r *enforce.Result) { r.Shape = enforce.ShapeLockFile }, "created", false},
		{"a person's group", func(r *enforce.Result) { r.Bot = false }, "created", false},
		{"verified group", func(r *enforce.Result) { r.Verdict = enforce.Allow }, "updated", false},
	} {
		r := group
		tt.modify(&r)
		if got := Ungroup(r, tt.comment); got != tt.want {
			t.Errorf("%s: Ungroup = %v, want %v", tt.name, got, tt.want)
		}
	}
}
