package adr

import (
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// repo390 is a repository of our own: a .NET identity server whose
// central package management holds one publisher's family of NuGet
// packages at one exact version (and another family's at a range), a
// Rust workspace that declares none of the crates the records below pin
// or describe, and a Python worker.
var repo390 = fstest.MapFS{
	"Directory.Packages.props": {Data: []byte(`<Project>
  <ItemGroup>
    <PackageVersion Include="Duende.IdentityModel" Version="7.1.0" />
    <PackageVersion Include="OpenIddict.Core" Version="[7.6.0]" />
    <PackageVersion Include="OpenIddict.Server.AspNetCore" Version="[7.6.0]" />
    <PackageVersion Include="OpenIddict.EntityFrameworkCore" Version="[7.6.0]" />
    <PackageVersion Include="Serilog.AspNetCore" Version="9.0.0" />
    <PackageVersion Include="Serilog.Sinks.Console" Version="6.0.0" />
  </ItemGroup>
</Project>`)},
	"Cargo.toml":            {Data: []byte("[workspace]\nmembers = [\"crates/*\"]\n\n[workspace.dependencies]\nlibp2p = { version = \"0.56\" }\n")},
	"jobs/requirements.txt": {Data: []byte("celery==5.4.0\n")},
}

// TestPackageFamiliesAndAttributivePins (ADR 0390): a product released as
// a NuGet ID prefix is every package of it the manifests pin exactly at
// the version the decision states ("Pin OpenIddict 7.6.0"); a pin
// participle used as an adjective ("the pinned libp2p-quic 0.13.1
// transport") describes a pin made elsewhere and does not make one. The
// family and attributive cases fail on 0099474 (no pin, and thirteen pins
// by name in every ecosystem).
func TestPackageFamiliesAndAttributivePins(t *testing.T) {
	checkPins(t, repo390, []pinCase{
		{"a NuGet family by its product name", "# 21. OpenIddict\n\n## Status\n\nAccepted\n\n## Decision\n\nWe pin OpenIddict 7.6.0 through central package management, all sub-packages aligned.\n",
			[]string{"nuget openiddict.core 7.6.0", "nuget openiddict.server.aspnetcore 7.6.0", "nuget openiddict.entityframeworkcore 7.6.0"}},
		{"a NuGet family named without a pin word, confirmed", "# 21. Identity\n\n## Status\n\nAccepted\n\n## Decision\n\nThe server runs on OpenIddict 7.6.0.\n",
			[]string{"nuget openiddict.core 7.6.0", "nuget openiddict.server.aspnetcore 7.6.0", "nuget openiddict.entityframeworkcore 7.6.0"}},
		{"a family whose packages differ in version is no family pin", "# 22. Logging\n\n## Status\n\nAccepted\n\n## Decision\n\nWe pin Serilog 9.0.0.\n",
			[]string{"nuget serilog.aspnetcore 9.0.0"}},
		{"a name that only begins another publisher's IDs", "# 23. Tokens\n\n## Status\n\nAccepted\n\n## Decision\n\nThe server runs on Duende 7.1.0.\n",
			[]string{"nuget duende.identitymodel 7.1.0"}},
		{"the pinned X: an adjective, no pin", "# 13. Calls\n\n## Status\n\nAccepted\n\n## Decision\n\nThe pinned `libp2p-quic 0.13.1` transport explicitly disables QUIC datagrams, so media uses a reliable substream.\n",
			nil},
		{"this locked X: an adjective, no pin", "# 13. Calls\n\n## Status\n\nAccepted\n\n## Decision\n\nThis locked libp2p-stream 0.4.1 stack carries one substream per call.\n",
			nil},
		{"X is pinned to: still a pin, by name", "# 13. Calls\n\n## Status\n\nAccepted\n\n## Decision\n\nlibp2p-quic is pinned to 0.13.1 until datagrams land.\n",
			byName("libp2p-quic", "0.13.1")},
		{"we pinned X to: still a pin", "# 14. Worker\n\n## Status\n\nAccepted\n\n## Decision\n\nWe pinned celery to 5.4.0.\n",
			[]string{"pip celery 5.4.0"}},
		{"the pinned X, confirmed by the manifest: a pin", "# 14. Worker\n\n## Status\n\nAccepted\n\n## Decision\n\nThe pinned celery 5.4.0 runs the jobs.\n",
			[]string{"pip celery 5.4.0"}},
	})
}

// byName is a pin enforced by name: one per ecosystem pinbot reads.
func byName(pkg, version string) []string {
	var out []string
	for _, e := range pin.Ecosystems {
		out = append(out, string(e)+" "+pin.NormalizeName(e, pkg)+" "+version)
	}
	return out
}

// TestTitleNamedVersionAloneFailsClosed (ADR 0390): a decision line that
// writes alone the exact version a manifest pins a package at, while the
// record's title names that package, is reported unread (fails closed);
// the same line under a title that names something else is not. The first
// case passed silently on 0099474.
func TestTitleNamedVersionAloneFailsClosed(t *testing.T) {
	repo := fstest.MapFS{"Dockerfile": {Data: []byte("FROM ghcr.io/acme/langfuse:4.2.0@sha256:f761e185fb018f4899078958f70c786dde98b8c62a527d73fbd54ab38aa4b89d AS web\nFROM ghcr.io/acme/langfuse-worker:4.2.0 AS worker\n")}}
	body := "\n\n## Status\n\nAccepted.\n\n## Decision\n\nUpstream never published 4.2.0 images to Docker Hub; 4.2.0 exists only on ghcr.io, so the web and worker\npins moved registries.\n"
	for _, c := range []struct {
		title string
		lines []int
	}{
		{"# 7. Langfuse v3 to v4 major upgrade", []int{9}},
		{"# 7. Move the images to ghcr.io", nil},
	} {
		rec, ws := Parse("docs/decisions/0007-x.md", []byte(c.title+body))
		_, ws = Ground([]Record{rec}, ws, Declared(repo))
		var lines []int
		for _, w := range ws {
			if w.Unreadable {
				lines = append(lines, w.Line)
			}
		}
		if fmt.Sprint(lines) != fmt.Sprint(c.lines) {
			t.Errorf("%s: unreadable warnings at lines %v, want %v (%v)", c.title, lines, c.lines, ws)
		}
	}
}
