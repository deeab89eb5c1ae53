package enforce

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// TestHelmValuesImages: a chart's values.yaml image (Renovate's helm-values
// shapes) is a Docker pin input (issue 23, Docker/Helm item). On the
// commit before it, values.yaml was read by nothing and every case that
// moves the pin was not-applicable.
func TestHelmValuesImages(t *testing.T) {
	const chart = "apiVersion: v2\nname: app\nversion: 1.0.0\nappVersion: \"2.1.0\"\n"
	values := func(image string) map[string]string {
		return map[string]string{
			"charts/app/Chart.yaml":  chart,
			"charts/app/values.yaml": "replicaCount: 1\n" + image,
		}
	}
	redis := ecoPin(pin.Docker, "bitnami/redis", "7.2.4")
	for _, tc := range []struct {
		name       string
		pin        pin.Pin
		base, head string
		want       Verdict
	}{
		{"repository and tag", redis,
			"image:\n  repository: bitnami/redis\n  tag: 7.2.4\n",
			"image:\n  repository: bitnami/redis\n  tag: 7.4.0\n", moves},
		{"registry, repository and tag under a nested key", redis,
			"cache:\n  redisImage:\n    registry: docker.io\n    repository: bitnami/redis\n    tag: 7.2.4\n    pullPolicy: IfNotPresent\n",
			"cache:\n  redisImage:\n    registry: docker.io\n    repository: bitnami/redis\n    tag: 7.4.0\n    pullPolicy: IfNotPresent\n", moves},
		{"version instead of tag", redis,
			"image:\n  repository: bitnami/redis\n  version: 7.2.4\n",
			"image:\n  repository: bitnami/redis\n  version: 7.4.0\n", moves},
		{"a digest added to the tag", redis,
			"image:\n  repository: bitnami/redis\n  tag: 7.2.4\n",
			"image:\n  repository: bitnami/redis\n  tag: 7.2.4\n  digest: sha256:" + strings.Repeat("a", 64) + "\n", NotApplicable}, // as in a Dockerfile: the digest fixes the pinned tag
		{"an inline reference", redis,
			"sidecars:\n  - name: cache\n    image: bitnami/redis:7.2.4\n",
			"sidecars:\n  - name: cache\n    image: bitnami/redis:7.4.0\n", moves},
		{"the tag left to the chart's templates", redis,
			"image:\n  repository: bitnami/redis\n  tag: 7.2.4\n",
			"image:\n  repository: bitnami/redis\n  tag: \"\"\n", Error},
		{"another image moves", redis,
			"image:\n  repository: bitnami/redis\n  tag: 7.2.4\nexporter:\n  image:\n    repository: oliver006/redis_exporter\n    tag: v1.58.0\n",
			"image:\n  repository: bitnami/redis\n  tag: 7.2.4\nexporter:\n  image:\n    repository: oliver006/redis_exporter\n    tag: v1.62.0\n", NotApplicable},
		{"a value that is no image changes", redis,
			"image:\n  repository: bitnami/redis\n  tag: 7.2.4\npullImage: true\n",
			"image:\n  repository: bitnami/redis\n  tag: 7.2.4\npullImage: false\n", NotApplicable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := evalTrees([]pin.Pin{tc.pin}, values(tc.base), values(tc.head))
			if tc.want == moves {
				if r.Verdict != Block && r.Verdict != Pending {
					t.Fatalf("verdict %s, want the pin to move (block or pending)\nchanges: %v\nerrors: %v", r.Verdict, r.Changes, r.Errors)
				}
				if len(r.Changes) != 1 || r.Changes[0].Manifest != "charts/app/values.yaml" || r.Changes[0].Package != "bitnami/redis" {
					t.Errorf("changes %v, want bitnami/redis in charts/app/values.yaml", r.Changes)
				}
				return
			}
			if r.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s\nchanges: %v\nerrors: %v", r.Verdict, tc.want, r.Changes, r.Errors)
			}
			if tc.want == Error && !strings.Contains(strings.Join(r.Errors, "\n"), "charts/app/values.yaml:3: image leaves the tag of bitnami/redis to the chart's templates") {
				t.Errorf("the error does not name the values line and the templates: %v", r.Errors)
			}
		})
	}
}

// TestHelmAppVersionUnderAnEmptyTag: a values image whose tag is empty takes
// its version from the chart's templates, usually Chart.yaml's appVersion;
// a change to appVersion (or to the values) cannot be shown to keep a pin
// of that image, and is nothing for a pin of another image or of an image
// whose tag the values fix.
func TestHelmAppVersionUnderAnEmptyTag(t *testing.T) {
	chart := func(app string) string {
		return "apiVersion: v2\nname: app\nversion: 1.0.0\nappVersion: \"" + app + "\"\n"
	}
	const vals = "image:\n  repository: acme/api\n  tag: \"\"\nredis:\n  image:\n    repository: bitnami/redis\n    tag: 7.2.4\n"
	base := map[string]string{"charts/app/Chart.yaml": chart("2.1.0"), "charts/app/values.yaml": vals}
	head := with(base, map[string]string{"charts/app/Chart.yaml": chart("2.2.0")})
	runTreeCases(t, []treeCase{
		{name: "appVersion moves under a pinned image's empty tag", pins: []pin.Pin{ecoPin(pin.Docker, "acme/api", "2.1.0")},
			base: base, head: head, want: Error,
			says: []string{"charts/app/values.yaml:2: image leaves the tag of acme/api to the chart's templates", "pinbot cannot prove it stays 2.1.0"}},
		{name: "a pin of the image whose tag the values fix", pins: []pin.Pin{ecoPin(pin.Docker, "bitnami/redis", "7.2.4")},
			base: base, head: head, want: NotApplicable},
	})
}
