package adr

import (
	"testing"
	"testing/fstest"
)

// TestChosenOptionHeading (ADR 0395): a heading that names the option a
// record chose is its decision, though "option" and "alternative" name
// parts that are not. The first two cases fail on 819c86c (no pin).
func TestChosenOptionHeading(t *testing.T) {
	repo := fstest.MapFS{"requirements.txt": {Data: []byte("kopf==1.40.1\nhttpx>=0.27\n")}}
	rec := func(heading string) string {
		return "# 9. Operator framework\n\n## Status\n\nAccepted\n\n## Context\n\nThe operator leaked memory after an upgrade.\n\n## Considered Options\n\n- kopf 1.42.0\n- kopf 1.40.1\n\n## " + heading + "\n\nWe pin kopf to 1.40.1 until the watch leak is fixed.\n\n## Consequences\n\nUpgrades wait for a memory check.\n"
	}
	checkPins(t, repo, []pinCase{
		{"chosen option", rec("Chosen Option"), []string{"pip kopf 1.40.1"}},
		{"selected alternative", rec("Selected alternative"), []string{"pip kopf 1.40.1"}},
		{"decision outcome", rec("Decision Outcome"), []string{"pip kopf 1.40.1"}},
		// The options themselves stay no pins.
		{"options only", rec("Pros and Cons of the Options"), nil},
	})
}
