package render

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/internal/dependabot"
	"github.com/kubetenant/kubetenant/internal/pin"
	. "github.com/kubetenant/kubetenant/pinbot/internal/enforce"
)

// The ignore snippet names the entry of the repository's dependabot.yml
// that covers the moving manifest: "uv" for a uv configuration, with its
// directory; without an entry it falls back to pinbot's name.
func TestCommentIgnoreSnippetFollowsDependabotYML(t *testing.T) {
	cfg, err := dependabot.Parse([]byte("version: 2\nupdates:\n  - package-ecosystem: uv\n    directory: /services/operator\n    schedule: {interval: weekly}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		manifest string
		cfg      dependabot.Config
		want     string
	}{
		{"services/operator/uv.lock", cfg, `# under the updates entry with package-ecosystem: "uv", directory: "/services/operator"`},
		{"tools/requirements.txt", cfg, `# under the updates entry with package-ecosystem: "pip" (or "uv")`},
		{"services/operator/uv.lock", dependabot.Config{}, `# under the updates entry with package-ecosystem: "pip" (or "uv")`},
	} {
		in := base()
		in.Dependabot = tt.cfg
		in.Changes = []pin.Change{{Ecosystem: pin.Pip, Package: "kopf", Manifest: tt.manifest, Old: "1.40.1", New: "1.42.0", Resolved: true}}
		r := Evaluate(in)
		if r.Verdict != Block {
			t.Fatalf("%s: verdict %s, want block", tt.manifest, r.Verdict)
		}
		if c := Comment(r, Repo{}, nil); !strings.Contains(c, tt.want) {
			t.Errorf("%s: comment lacks %q:\n%s", tt.manifest, tt.want, c)
		}
	}
}
