package source

import (
	"slices"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// manifestKey is the part of the rules' content key the manifests make:
// they ground the records' pins (adr.Ground), so rules read at a commit
// whose manifests differ are other rules.
func manifestKey(files map[string]Entry) string {
	var ms []string
	for p, e := range files {
		if pin.IsManifest(p) {
			ms = append(ms, p+"="+e.SHA+";")
		}
	}
	slices.Sort(ms)
	return strings.Join(ms, "")
}
