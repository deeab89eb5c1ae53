package maven

import (
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Name is the ecosystem's name in ADR front matter (Dependabot's
// package-ecosystem value).
const Name = "maven"

// Definition registers the ecosystem in internal/pin's registry table.
var Definition = manifest.Definition{
	Name:      Name,
	Namespace: Name,
	// Gradle's packages share the datasource: it names no one ecosystem.
	Datasources: []string{"maven"},
	Normalize:   Normalize,
	Compare:     Compare,
	Formats: []manifest.Format{
		{Name: "pom.xml", Match: manifest.Base("pom.xml"), Read: readPom, ViaResolver: true},
	},
	Exact:           manifest.BracketExact,
	Same:            manifest.SameTrimmedVersion,
	Inputs:          Inputs,
	Resolve:         resolvePoms,
	Via:             "Maven's effective POM",
	Advisory:        "maven",
	Dependabot:      []string{Name},
	RenovateAllowed: manifest.RenovateBracket,
	Lacks: map[string]string{
		"RenovateTopics": "Renovate titles its updates \"dependency\", which names no ecosystem",
		"Words":          "none yet: inference from prose covers the six ecosystems of issue 17; words for this one would change which records infer",
	},
}

// Inputs are the files whose change can alter the version Maven resolves,
// from Maven's documentation.
var Inputs = []manifest.Input{
	{Files: "pom.xml at any depth", Role: "a module, parent or BOM POM", Example: "services/api/pom.xml",
		Match: manifest.Base("pom.xml"), Evaluated: true, Doc: "https://maven.apache.org/guides/introduction/introduction-to-the-pom.html"},
	{Files: ".mvn/maven.config", Role: "command-line options: -D user properties, -P profiles", Example: ".mvn/maven.config",
		Match: mvnFile("maven.config"), Evaluated: true, Doc: "https://maven.apache.org/configure.html"},
	{Files: ".mvn/jvm.config", Role: "JVM options: -D system properties", Example: ".mvn/jvm.config",
		Match: mvnFile("jvm.config"), Evaluated: true, Doc: "https://maven.apache.org/configure.html"},
	{Files: ".mvn/wrapper/maven-wrapper.properties", Role: "the Maven version, whose super POM versions unversioned plugins",
		Example: ".mvn/wrapper/maven-wrapper.properties", Match: mvnFile("wrapper/maven-wrapper.properties"), Evaluated: true,
		Doc: "https://maven.apache.org/wrapper/"},
	{Files: ".mvn/extensions.xml", Role: "core extensions, which can change how the build resolves", Example: ".mvn/extensions.xml",
		Match: mvnFile("extensions.xml"), Doc: "https://maven.apache.org/configure.html"},
	{Files: ".mvn/settings.xml, .m2/settings.xml", Role: "settings profiles, properties and repositories (used with -s)",
		Example: ".mvn/settings.xml", Match: isSettings, Doc: "https://maven.apache.org/settings.html"},
}

// mvnFile matches a file under a .mvn folder at any depth.
func mvnFile(rel string) func(string) bool {
	return func(p string) bool {
		return strings.HasSuffix("/"+p, "/.mvn/"+rel)
	}
}

func isSettings(p string) bool {
	d := path.Base(path.Dir(p))
	return path.Base(p) == "settings.xml" && (d == ".mvn" || d == ".m2")
}

// Normalize removes spaces from "group:artifact" coordinates, which are
// case-sensitive and otherwise kept.
func Normalize(name string) string { return strings.Join(strings.Fields(name), "") }
