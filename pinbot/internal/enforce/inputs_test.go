package enforce

import (
	"path"
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// unresolvable are changes pinbot cannot resolve, for the inputs whose
// file would otherwise be read (any content pinbot does not evaluate will
// do for the others). Keyed by the input's example path.
var unresolvable = map[string]string{
	"deploy/.env":                           "TAG=${BASE_TAG}\n",
	"charts/web/Chart.yaml":                 "apiVersion: v2\nname: web\nversion: 1.0.0\nappVersion: 2.0.0\n",
	"setup.cfg":                             "[options]\ninstall_requires =\n    pinned @ {env:PINNED_URL}\n",
	"images/api/Dockerfile":                 "FROM pinned:${TAG}\n",
	"Gemfile":                               "source \"https://rubygems.org\"\ngem \"pinned\", ENV.fetch(\"PINNED_VERSION\")\n",
	"Gemfile.lock":                          "GEM\n  remote: https://rubygems.org/\n  specs:\n    pinned (1.0.0\n",
	"mylib.gemspec":                         "Gem::Specification.new do |spec|\n  spec.add_dependency \"pinned\", PINNED_VERSION\nend\n",
	".mvn/maven.config":                     "-s ci/settings.xml\n",
	".mvn/jvm.config":                       "-Djackson.version=${env.JACKSON}\n",
	".mvn/wrapper/maven-wrapper.properties": "distributionUrl=https://repo.maven.apache.org/maven2/org/apache/maven/apache-maven/3.9.6/apache-maven-3.9.6-bin.zip\n",
}

// unresolvableBase is the repository the change lands in, for inputs that
// only matter next to another file.
var unresolvableBase = map[string]map[string]string{
	"deploy/.env": {"deploy/compose.yaml": "services:\n  app:\n    image: pinned:${TAG:-1.0.0}\n"},
	"charts/web/Chart.yaml": {"charts/web/values.yaml": "image:\n  repository: pinned\n  tag: \"\"\n",
		"charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\nappVersion: 1.0.0\n"},
	".mvn/maven.config": {"pom.xml": "<project><groupId>g</groupId><artifactId>a</artifactId><version>1</version>" +
		"<dependencies><dependency><groupId>g</groupId><artifactId>pinned</artifactId><version>1.0.0</version></dependency></dependencies></project>\n"},
	".mvn/jvm.config": {"pom.xml": "<project><groupId>g</groupId><artifactId>a</artifactId><version>1</version>" +
		"<dependencies><dependency><groupId>g</groupId><artifactId>pinned</artifactId><version>${jackson.version}</version></dependency></dependencies></project>\n"},
	".mvn/wrapper/maven-wrapper.properties": {"pom.xml": "<project><groupId>g</groupId><artifactId>a</artifactId><version>1</version>" +
		"<build><plugins><plugin><artifactId>pinned</artifactId></plugin></plugins></build></project>\n"},
}

// pinnedName is a package an input can move: "pinned", or one its Affects
// patterns match.
func pinnedName(in pin.Input) string {
	name := "g:pinned"
	switch in.Ecosystem {
	case pin.Maven, pin.Gradle:
		if in.Example == ".mvn/wrapper/maven-wrapper.properties" {
			name = "org.apache.maven.plugins:pinned"
		}
	default:
		name = "pinned"
	}
	if in.Affects != "" {
		pat := strings.Split(in.Affects, ",")[0]
		name = strings.NewReplacer("*", "x", "?", "x").Replace(pat)
	}
	return name
}

// TestEveryInputFailsClosed is the table test of issue 23, item 1: for
// every resolution input of every ecosystem, a change to it whose effect on
// a pinned package pinbot cannot resolve is never not-applicable: it is an
// error naming the file (or, for a format pinbot reads, the parse error).
func TestEveryInputFailsClosed(t *testing.T) {
	inputs := pin.Inputs()
	if len(inputs) < 13 {
		t.Fatalf("only %d inputs", len(inputs))
	}
	seen := map[pin.Ecosystem]int{}
	for _, in := range inputs {
		seen[in.Ecosystem]++
		t.Run(string(in.Ecosystem)+"/"+in.Example, func(t *testing.T) {
			if !in.Match(in.Example) {
				t.Fatalf("the input's example %s does not match it", in.Example)
			}
			content, ok := unresolvable[in.Example]
			if !ok {
				content = "\x00 {{{ <<< not a file of this kind ]]] =\n"
			}
			base := map[string]string{}
			for p, c := range unresolvableBase[in.Example] {
				base[p] = c
			}
			head := with(base, map[string]string{in.Example: content})
			p := ecoPin(in.Ecosystem, pinnedName(in), "1.0.0")
			r := evalTrees([]pin.Pin{p}, base, head)
			if r.Verdict == NotApplicable || r.Verdict == Allow {
				t.Fatalf("a change to %s (%s) is %s; want it never to pass\nchanges: %v", in.Example, in.Files, r.Verdict, r.Changes)
			}
			named := strings.Contains(strings.Join(r.Errors, "\n"), path.Base(in.Example))
			for p := range base {
				named = named || (in.Evaluated && strings.Contains(strings.Join(r.Errors, "\n"), p))
			}
			if r.Verdict == Error && !named {
				t.Errorf("the error names neither %s nor the file it resolves:\n%s", in.Example, strings.Join(r.Errors, "\n"))
			}
			// The same change with no pin of the ecosystem does not fail.
			other := pin.Pin{Ecosystem: pin.Pip, Package: "unrelated", Version: "1", Enforced: true}
			if in.Ecosystem == pin.Pip {
				other.Ecosystem = pin.Gomod
			}
			if r := evalTrees([]pin.Pin{other}, base, head); r.Verdict != NotApplicable && !in.Evaluated {
				t.Errorf("with no pin of %s, a change to %s is %s: %v", in.Ecosystem, in.Example, r.Verdict, r.Errors)
			}
		})
	}
	for _, e := range pin.Ecosystems {
		if seen[e] == 0 {
			t.Errorf("ecosystem %s declares no resolution inputs", e)
		}
	}
}
