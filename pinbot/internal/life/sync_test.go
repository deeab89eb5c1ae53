package life

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/pinbot/internal/botcfg"
)

func TestSync(t *testing.T) {
	edit := botcfg.Edit{Path: ".github/dependabot.yml", After: []byte("x"),
		Changes: []string{".github/dependabot.yml: ignore kopf (ADR 0083, nolar/kopf#1172)"}}
	fresh := Sync([]botcfg.Edit{edit}, nil, "main", "0123456789abcdef")
	if fresh.Update != 0 || len(fresh.Edits) != 1 || fresh.Close != nil {
		t.Fatalf("a first proposal = %+v, want one to open", fresh)
	}
	for _, want := range []string{"`main` (at 0123456)", "- ignore kopf (ADR 0083, nolar/kopf#1172) (`.github/dependabot.yml`)"} {
		if !strings.Contains(fresh.Body, want) {
			t.Errorf("body lacks %q:\n%s", want, fresh.Body)
		}
	}
	tests := []struct {
		name  string
		edits []botcfg.Edit
		open  []SyncPull
		want  SyncPlan
	}{
		{"agrees, nothing open", nil, nil, SyncPlan{CloseComment: "The bots' configuration on `main` agrees with the ADRs now; pinbot closes this pull request."}},
		{"agrees: the open ones close", nil, []SyncPull{{Number: 4}, {Number: 9}},
			SyncPlan{Close: []int{4, 9}, CloseComment: "The bots' configuration on `main` agrees with the ADRs now; pinbot closes this pull request."}},
		{"unchanged open one is kept as it is", []botcfg.Edit{edit}, []SyncPull{{Number: 4, Title: fresh.Title, Body: fresh.Body}},
			SyncPlan{Edits: []botcfg.Edit{edit}, Title: fresh.Title, Body: fresh.Body, Update: 4}},
		{"a changed one is edited", []botcfg.Edit{edit}, []SyncPull{{Number: 4, Title: fresh.Title, Body: "old"}},
			SyncPlan{Edits: []botcfg.Edit{edit}, Title: fresh.Title, Body: fresh.Body, Update: 4, Edit: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Sync(tt.edits, tt.open, "main", "0123456789abcdef")); diff != "" {
				t.Errorf("Sync (-want +got):\n%s", diff)
			}
		})
	}
	if got := CommitMessage(".github/renovate.json"); got != "pinbot sync: .github/renovate.json from the ADRs" {
		t.Errorf("CommitMessage = %q", got)
	}
}
