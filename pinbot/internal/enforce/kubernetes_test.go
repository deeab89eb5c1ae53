package enforce

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/dependabot"
)

// manifestPaths adds folders of Kubernetes manifests to those dependabot.yml
// configures for docker.
func TestKubernetesDirs(t *testing.T) {
	cfg, err := ParseConfig([]byte("manifestPaths: [k8s/**]\n"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := dependabot.Parse([]byte("updates:\n  - package-ecosystem: docker\n    directory: /deploy\n  - package-ecosystem: pip\n    directory: /\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.KubernetesDirs(d)
	if len(got) != 2 || got[0] != "/deploy" || got[1] != "k8s/**" {
		t.Errorf("KubernetesDirs = %q, want [/deploy k8s/**]", got)
	}
	if _, err := ParseConfig([]byte("manifestPaths: k8s\n")); err == nil {
		t.Error("a manifestPaths that is not a list parsed")
	}
}
