package life

import (
	"fmt"
	"strings"

	"github.com/kubetenant/kubetenant/pinbot/internal/botcfg"
	"github.com/kubetenant/kubetenant/pinbot/internal/enforce"
)

// SyncPull is an open pull request from the sync branch, as read.
type SyncPull struct {
	Number      int
	Title, Body string
}

// SyncPlan is what a push to the default branch asks of the sync pull
// request (ADR 0280).
type SyncPlan struct {
	// Close are the open sync pull requests to close (the configuration
	// agrees with the ADRs), each with CloseComment first.
	Close        []int
	CloseComment string
	// Edits are the files to commit on the sync branch, reset to the new
	// head (none: nothing to propose).
	Edits []botcfg.Edit
	// Title and Body are the sync pull request's.
	Title, Body string
	// Update is the open sync pull request to keep (0: open one); Edit says
	// its title or body changes.
	Update int
	Edit   bool
}

// Sync plans the sync pull request from botcfg.Sync's edits at head of
// ref and the open sync pull requests.
func Sync(edits []botcfg.Edit, open []SyncPull, ref, head string) SyncPlan {
	if len(edits) == 0 {
		p := SyncPlan{CloseComment: "The bots' configuration on `" + ref + "` agrees with the ADRs now; pinbot closes this pull request."}
		for _, pr := range open {
			p.Close = append(p.Close, pr.Number)
		}
		return p
	}
	var changes []string
	for _, ed := range edits {
		for _, c := range ed.Changes {
			changes = append(changes, "- "+strings.TrimPrefix(c, ed.Path+": ")+" (`"+ed.Path+"`)")
		}
	}
	if len(head) > 7 {
		head = head[:7]
	}
	p := SyncPlan{Edits: edits, Title: "pinbot: keep the bots' configuration in sync with the ADRs",
		Body: fmt.Sprintf("The ADRs on `%s` (at %s) pin dependencies the bots' configuration does not reflect yet. This pull request writes them, as `pinbot sync` would:\n\n%s\n\n"+
			"Each entry names its ADR and upstream issue; pinbot updates this pull request when the ADRs change and removes the entries of superseded ADRs. "+
			"Whether the bots should stop proposing these updates is the team's choice (`sync` in `.github/pinbot.yml`): pinbot enforces the pins either way.\n",
			ref, head, strings.Join(changes, "\n"))}
	if len(open) > 0 {
		p.Update = open[0].Number
		p.Edit = open[0].Body != p.Body || open[0].Title != p.Title
	}
	return p
}

// Ungroup says whether a decision asks for the sync pull request at once:
// a bot's group moves a pinned package and pinbot has just written its
// comment there (created, or updated for a new head), so the bots'
// configuration should take the package out of the group now rather than
// at the next push to the default branch (ADR 0273). An unchanged comment
// asks for nothing: the sync already ran for it.
func Ungroup(res enforce.Result, comment string) bool {
	return res.Shape == enforce.ShapeGrouped && res.Bot &&
		res.Verdict == enforce.Block && (comment == "created" || comment == "updated")
}

// CommitMessage is the message of the sync branch's commit of path.
func CommitMessage(path string) string { return fmt.Sprintf("pinbot sync: %s from the ADRs", path) }
