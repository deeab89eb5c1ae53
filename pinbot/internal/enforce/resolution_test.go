package enforce

import (
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// These tests are issue 23: a pass is a proof. Each case is a repository
// at base and head, the pins of its ADRs, and the verdict pinbot must
// reach from pin.Diff of the two trees, as `pinbot evaluate` computes it.
// "moves" means the pin moves (Block or Pending, never NotApplicable or
// Error).

const moves Verdict = "moves"

type treeCase struct {
	name       string
	pins       []pin.Pin
	base, head map[string]string
	want       Verdict
	// says are substrings the errors (want Error) or reasons must hold.
	says []string
	// never are substrings no error or reason may hold.
	never []string
}

func mapTree(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for p, c := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(c)}
	}
	return fsys
}

// with returns base with the files of changes replaced ("" removes one).
func with(base map[string]string, changes map[string]string) map[string]string {
	out := map[string]string{}
	for p, c := range base {
		out[p] = c
	}
	for p, c := range changes {
		if c == "" {
			delete(out, p)
			continue
		}
		out[p] = c
	}
	return out
}

func evalTrees(pins []pin.Pin, base, head map[string]string) Result {
	changes, err := pin.Diff(mapTree(base), mapTree(head))
	// The pull request's files, as GitHub lists them.
	var files []string
	for p, c := range head {
		if b, ok := base[p]; !ok || b != c {
			files = append(files, p)
		}
	}
	for p := range base {
		if _, ok := head[p]; !ok {
			files = append(files, p)
		}
	}
	sort.Strings(files)
	in := Input{Pins: pins, Changes: changes, Config: DefaultConfig(), PR: PullRequest{Author: "dependabot[bot]", AuthorIsBot: true, HeadSHA: "h", Files: files}}
	if err != nil {
		in.ReadErrors = []error{err}
	}
	return Evaluate(in)
}

func runTreeCases(t *testing.T, cases []treeCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := evalTrees(c.pins, c.base, c.head)
			text := strings.Join(append(append([]string{}, r.Errors...), r.Reasons...), "\n")
			switch c.want {
			case moves:
				if r.Verdict != Block && r.Verdict != Pending {
					t.Fatalf("verdict %s, want the pin to move (block or pending)\nchanges: %v\n%s", r.Verdict, r.Changes, text)
				}
			default:
				if r.Verdict != c.want {
					t.Fatalf("verdict %s, want %s\nchanges: %v\n%s", r.Verdict, c.want, r.Changes, text)
				}
			}
			for _, s := range c.says {
				if !strings.Contains(text, s) {
					t.Errorf("the verdict does not say %q:\n%s", s, text)
				}
			}
			for _, s := range c.never {
				if strings.Contains(text, s) {
					t.Errorf("the verdict says %q:\n%s", s, text)
				}
			}
		})
	}
}

func ecoPin(e pin.Ecosystem, pkg, version string) pin.Pin {
	return pin.Pin{Ecosystem: e, Package: pkg, Version: version, Enforced: true,
		Source: pin.Source{Number: 12, Title: "Pin " + pkg, Path: "adr/0012-pin.md"}}
}

const jackson = "com.fasterxml.jackson.core:jackson-databind"

// pom writes a POM: body goes inside <project> after the coordinates.
func pom(artifact, body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>` + artifact + `</artifactId>
  <version>1.0.0</version>
` + body + `
</project>
`
}

const jacksonDep = `  <dependencies>
    <dependency>
      <groupId>com.fasterxml.jackson.core</groupId>
      <artifactId>jackson-databind</artifactId>
      <version>${jackson.version}</version>
    </dependency>
  </dependencies>`

const managedJackson = `  <dependencies>
    <dependency>
      <groupId>com.fasterxml.jackson.core</groupId>
      <artifactId>jackson-databind</artifactId>
    </dependency>
  </dependencies>`

func bootParent(v string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>org.springframework.boot</groupId>
    <artifactId>spring-boot-starter-parent</artifactId>
    <version>` + v + `</version>
    <relativePath/>
  </parent>
  <artifactId>app</artifactId>
` + managedJackson + `
</project>
`
}

func bootBOM(v string) string {
	return pom("app", `  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>org.springframework.boot</groupId>
        <artifactId>spring-boot-dependencies</artifactId>
        <version>`+v+`</version>
        <type>pom</type>
        <scope>import</scope>
      </dependency>
    </dependencies>
  </dependencyManagement>
`+managedJackson)
}

var mavenReactor = map[string]string{
	"pom.xml": pom("parent", `  <packaging>pom</packaging>
  <modules><module>svc</module></modules>
  <properties><jackson.version>2.15.3</jackson.version></properties>`),
	"svc/pom.xml": `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>com.example</groupId>
    <artifactId>parent</artifactId>
    <version>1.0.0</version>
  </parent>
  <artifactId>svc</artifactId>
` + jacksonDep + `
</project>
`,
}

func profilePom(defaultVersion string) string {
	return pom("app", `  <properties><jackson.version>2.15.3</jackson.version></properties>
  <profiles>
    <profile>
      <id>default</id>
      <activation><activeByDefault>true</activeByDefault></activation>
      <properties><jackson.version>`+defaultVersion+`</jackson.version></properties>
    </profile>
  </profiles>
`+jacksonDep)
}

func pluginDepPom(v string) string {
	return pom("app", `  <build>
    <plugins>
      <plugin>
        <groupId>org.jsonschema2pojo</groupId>
        <artifactId>jsonschema2pojo-maven-plugin</artifactId>
        <version>1.2.1</version>
        <dependencies>
          <dependency>
            <groupId>com.fasterxml.jackson.core</groupId>
            <artifactId>jackson-databind</artifactId>
            <version>`+v+`</version>
          </dependency>
        </dependencies>
      </plugin>
    </plugins>
  </build>`)
}

func guavaPom(revisionParent bool, guava string) map[string]string {
	parentVersion := "1.0.0"
	if revisionParent {
		parentVersion = "${revision}"
	}
	return map[string]string{
		"pom.xml": `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>parent</artifactId>
  <version>${revision}</version>
  <packaging>pom</packaging>
  <properties><revision>1.0.0-SNAPSHOT</revision></properties>
  <modules><module>svc</module></modules>
</project>
`,
		"svc/pom.xml": `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>com.example</groupId>
    <artifactId>parent</artifactId>
    <version>` + parentVersion + `</version>
  </parent>
  <artifactId>svc</artifactId>
  <dependencies>
    <dependency>
      <groupId>com.google.guava</groupId>
      <artifactId>guava</artifactId>
      <version>` + guava + `</version>
    </dependency>
  </dependencies>
</project>
`,
	}
}

func latin1Pom(guava string) string {
	return "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n" +
		"<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n" +
		"  <!-- Auteur : Ren\xe9 -->\n" +
		"  <modelVersion>4.0.0</modelVersion>\n  <groupId>com.example</groupId>\n  <artifactId>app</artifactId>\n  <version>1.0.0</version>\n" +
		"  <dependencies>\n    <dependency>\n      <groupId>com.google.guava</groupId>\n      <artifactId>guava</artifactId>\n      <version>" + guava + "</version>\n    </dependency>\n  </dependencies>\n</project>\n"
}

// externalPropPom uses a property only the parent outside the repository
// defines.
func externalPropPom(v string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>com.example.platform</groupId>
    <artifactId>platform-parent</artifactId>
    <version>` + v + `</version>
    <relativePath/>
  </parent>
  <artifactId>app</artifactId>
  <dependencies>
    <dependency>
      <groupId>io.netty</groupId>
      <artifactId>netty-handler</artifactId>
      <version>${netty.version}</version>
    </dependency>
  </dependencies>
</project>
`
}

func TestMavenResolution(t *testing.T) {
	jacksonPin := []pin.Pin{ecoPin(pin.Maven, jackson, "2.15.3")}
	runTreeCases(t, []treeCase{
		{
			name: "only the parent POM's property changes",
			pins: jacksonPin, base: mavenReactor,
			head: with(mavenReactor, map[string]string{"pom.xml": strings.Replace(mavenReactor["pom.xml"], "2.15.3", "2.17.1", 1)}),
			want: moves, says: []string{"svc/pom.xml"},
		},
		{
			name: "an external parent manages the version and the PR moves the parent",
			pins: jacksonPin,
			base: map[string]string{"pom.xml": bootParent("3.2.0")}, head: map[string]string{"pom.xml": bootParent("3.3.0")},
			want: Error,
			says: []string{"jackson-databind is managed by org.springframework.boot:spring-boot-starter-parent, which this PR moves from 3.2.0 to 3.3.0", "pinbot cannot prove it stays 2.15.3"},
		},
		{
			name: "an imported BOM outside the repository manages the version and the PR moves it",
			pins: jacksonPin,
			base: map[string]string{"pom.xml": bootBOM("3.2.0")}, head: map[string]string{"pom.xml": bootBOM("3.3.0")},
			want: Error,
			says: []string{"jackson-databind is managed by org.springframework.boot:spring-boot-dependencies, which this PR moves from 3.2.0 to 3.3.0; pinbot cannot prove it stays 2.15.3"},
		},
		{
			name: "the external parent moves but the pinned package's version is declared in the POM",
			pins: []pin.Pin{ecoPin(pin.Maven, "org.postgresql:postgresql", "42.7.1")},
			base: map[string]string{"pom.xml": withPostgres(bootParent("3.2.0"))}, head: map[string]string{"pom.xml": withPostgres(bootParent("3.3.0"))},
			want: NotApplicable,
		},
		{
			name: "the external parent moves and the pinned package is not declared (a transitive dependency)",
			pins: []pin.Pin{ecoPin(pin.Maven, "org.yaml:snakeyaml", "2.2")},
			base: map[string]string{"pom.xml": withPostgres(bootParent("3.2.0"))}, head: map[string]string{"pom.xml": withPostgres(bootParent("3.3.0"))},
			want: Error, says: []string{"the parent POM org.springframework.boot:spring-boot-starter-parent outside the repository manages the versions of the dependencies pom.xml does not declare itself, transitive ones included, which this PR moves from 3.2.0 to 3.3.0"},
		},
		{
			name: "a profile active by default overrides the property",
			pins: jacksonPin,
			base: map[string]string{"pom.xml": profilePom("2.15.3")}, head: map[string]string{"pom.xml": profilePom("2.17.1")},
			want: moves,
		},
		{
			name: ".mvn/maven.config sets the property with -D",
			pins: jacksonPin,
			base: map[string]string{"pom.xml": pom("app", "  <properties><jackson.version>2.15.3</jackson.version></properties>\n"+jacksonDep)},
			head: map[string]string{"pom.xml": pom("app", "  <properties><jackson.version>2.15.3</jackson.version></properties>\n"+jacksonDep), ".mvn/maven.config": "-B\n-Djackson.version=2.17.1\n"},
			want: moves,
		},
		{
			name: "a plugin's own dependency moves",
			pins: jacksonPin,
			base: map[string]string{"pom.xml": pluginDepPom("2.15.3")}, head: map[string]string{"pom.xml": pluginDepPom("2.17.1")},
			want: moves,
		},
		{
			name: "a parent version of ${revision} is Maven's CI-friendly version, not an error",
			pins: jacksonPin,
			base: guavaPom(true, "32.1.3-jre"), head: guavaPom(true, "33.0.0-jre"),
			want: NotApplicable,
		},
		{
			name: "a POM encoded in ISO-8859-1 is read",
			pins: jacksonPin,
			base: map[string]string{"pom.xml": latin1Pom("32.1.3-jre")}, head: map[string]string{"pom.xml": latin1Pom("33.0.0-jre")},
			want: NotApplicable,
		},
		{
			name: "a property from an external parent does not fail a repository with no Maven pin",
			pins: []pin.Pin{ecoPin(pin.Pip, "kopf", "1.40.1")},
			base: map[string]string{"pom.xml": externalPropPom("7")}, head: map[string]string{"pom.xml": externalPropPom("8")},
			want: NotApplicable,
		},
		{
			name: "a property from an external parent the PR moves fails closed for a pin of that package",
			pins: []pin.Pin{ecoPin(pin.Maven, "io.netty:netty-handler", "4.1.100.Final")},
			base: map[string]string{"pom.xml": externalPropPom("7")}, head: map[string]string{"pom.xml": externalPropPom("8")},
			want: Error, says: []string{"netty", "com.example.platform:platform-parent", "from 7 to 8"},
		},
		{
			name: "error texts keep the case of file paths",
			pins: jacksonPin,
			base: map[string]string{"pom.xml": pom("app", jacksonDep)}, head: map[string]string{"pom.xml": "<project><oops></project>"},
			want: Error, says: []string{"pom.xml:"}, never: []string{"Pom.xml"},
		},
	})
}

func csproj(body string) string {
	return `<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup>
` + body + `
</Project>
`
}

func props(body string) string { return "<Project>\n" + body + "\n</Project>\n" }

const newtonsoftRef = `  <ItemGroup><PackageReference Include="Newtonsoft.Json" Version="$(NewtonsoftVersion)" /></ItemGroup>`

func TestMSBuildResolution(t *testing.T) {
	pins := []pin.Pin{ecoPin(pin.NuGet, "Newtonsoft.Json", "13.0.1")}
	buildProps := map[string]string{
		"Directory.Build.props":  props(`  <PropertyGroup><NewtonsoftVersion>13.0.1</NewtonsoftVersion></PropertyGroup>`),
		"src/App/App.csproj":     csproj(newtonsoftRef),
		"src/Lib/Lib.csproj":     csproj(""),
		"src/App/appsettings.js": "{}",
	}
	cpm := map[string]string{
		"Directory.Build.props":    props(`  <PropertyGroup><NewtonsoftVersion>13.0.1</NewtonsoftVersion></PropertyGroup>`),
		"Directory.Packages.props": props(`  <ItemGroup><PackageVersion Include="Newtonsoft.Json" Version="$(NewtonsoftVersion)" /></ItemGroup>`),
		"src/App/App.csproj":       csproj(`  <ItemGroup><PackageReference Include="Newtonsoft.Json" /></ItemGroup>`),
	}
	ownProp := func(extra string) map[string]string {
		return map[string]string{"src/App/App.csproj": csproj("  <PropertyGroup><NewtonsoftVersion>13.0.1</NewtonsoftVersion>" + extra + "</PropertyGroup>\n" + newtonsoftRef)}
	}
	runTreeCases(t, []treeCase{
		{
			name: "only Directory.Build.props changes the property",
			pins: pins, base: buildProps,
			head: with(buildProps, map[string]string{"Directory.Build.props": props(`  <PropertyGroup><NewtonsoftVersion>13.0.3</NewtonsoftVersion></PropertyGroup>`)}),
			want: moves, says: []string{"src/App/App.csproj"},
		},
		{
			name: "a conditional default keeps the first definition",
			pins: pins, base: ownProp(""),
			head: ownProp(`<NewtonsoftVersion Condition="'$(NewtonsoftVersion)' == ''">13.0.3</NewtonsoftVersion>`),
			want: NotApplicable,
		},
		{
			name: "property names are case-insensitive",
			pins: pins,
			base: map[string]string{"src/App/App.csproj": csproj("  <PropertyGroup><NEWTONSOFTVERSION>13.0.1</NEWTONSOFTVERSION></PropertyGroup>\n" + newtonsoftRef)},
			head: map[string]string{"src/App/App.csproj": csproj("  <PropertyGroup><NEWTONSOFTVERSION>13.0.3</NEWTONSOFTVERSION></PropertyGroup>\n" + newtonsoftRef)},
			want: moves,
		},
		{
			name: "Directory.Build.targets is evaluated after the project and overrides it",
			pins: pins, base: ownProp(""),
			head: with(ownProp(""), map[string]string{"Directory.Build.targets": props(`  <PropertyGroup><NewtonsoftVersion>13.0.3</NewtonsoftVersion></PropertyGroup>`)}),
			want: moves,
		},
		{
			name: "central package management takes the version from Directory.Build.props",
			pins: pins, base: cpm,
			head: with(cpm, map[string]string{"Directory.Build.props": props(`  <PropertyGroup><NewtonsoftVersion>13.0.3</NewtonsoftVersion></PropertyGroup>`)}),
			want: moves,
		},
	})
}

func catalog(v string) string {
	return "[versions]\njackson = \"" + v + "\"\n\n[libraries]\njackson-databind = { module = \"com.fasterxml.jackson.core:jackson-databind\", version.ref = \"jackson\" }\n"
}

func TestGradleResolution(t *testing.T) {
	gradlePin := []pin.Pin{ecoPin(pin.Gradle, jackson, "2.15.3")}
	build := "plugins { id 'java' }\ndependencies { implementation libs.jackson.databind }\n"
	runTreeCases(t, []treeCase{
		{
			name: "gradle.properties changes",
			pins: gradlePin,
			base: map[string]string{"build.gradle": build, "gradle.properties": "jacksonVersion=2.15.3\n"},
			head: map[string]string{"build.gradle": build, "gradle.properties": "jacksonVersion=2.17.1\n"},
			want: Error, says: []string{"gradle.properties"},
		},
		{
			name: "a catalog under gradle/catalogs",
			pins: gradlePin,
			base: map[string]string{"gradle/catalogs/libs.versions.toml": catalog("2.15.3")},
			head: map[string]string{"gradle/catalogs/libs.versions.toml": catalog("2.17.1")},
			want: moves,
		},
		{
			name: "a catalog outside gradle/",
			pins: gradlePin,
			base: map[string]string{"deps.versions.toml": catalog("2.15.3")},
			head: map[string]string{"deps.versions.toml": catalog("2.17.1")},
			want: moves,
		},
		{
			name: "the settings and buildscript lockfiles",
			pins: gradlePin,
			base: map[string]string{"buildscript-gradle.lockfile": jackson + ":2.15.3=classpath\n", "settings-gradle.lockfile": jackson + ":2.15.3=incomingCatalogForLibs0\n"},
			head: map[string]string{"buildscript-gradle.lockfile": jackson + ":2.17.1=classpath\n", "settings-gradle.lockfile": jackson + ":2.17.1=incomingCatalogForLibs0\n"},
			want: moves,
		},
		{
			name: "a pin written for maven matches a Gradle project's catalog",
			pins: []pin.Pin{ecoPin(pin.Maven, jackson, "2.15.3")},
			base: map[string]string{"gradle/libs.versions.toml": catalog("2.15.3")},
			head: map[string]string{"gradle/libs.versions.toml": catalog("2.17.1")},
			want: moves,
		},
		{
			name: "a pin written for gradle matches a Maven POM",
			pins: gradlePin,
			base: map[string]string{"pom.xml": pom("app", "  <properties><jackson.version>2.15.3</jackson.version></properties>\n"+jacksonDep)},
			head: map[string]string{"pom.xml": pom("app", "  <properties><jackson.version>2.17.1</jackson.version></properties>\n"+jacksonDep)},
			want: moves,
		},
	})
}

func cargoLock(syn1 string) string {
	return "version = 3\n\n[[package]]\nname = \"syn\"\nversion = \"" + syn1 + "\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n" +
		"[[package]]\nname = \"syn\"\nversion = \"2.0.48\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n"
}

func cargoToml(req string) string {
	return "[package]\nname = \"app\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"" + req + "\"\n"
}

func TestCargoResolution(t *testing.T) {
	runTreeCases(t, []treeCase{
		{
			name: "two majors in Cargo.lock are two packages",
			pins: []pin.Pin{ecoPin(pin.Cargo, "syn", "2.0.48")},
			base: map[string]string{"Cargo.lock": cargoLock("1.0.109")}, head: map[string]string{"Cargo.lock": cargoLock("1.0.110")},
			want: NotApplicable,
		},
		{
			name: "=1.0.100 loosened to 1.0.100 without a Cargo.lock",
			pins: []pin.Pin{ecoPin(pin.Cargo, "serde", "1.0.100")},
			base: map[string]string{"Cargo.toml": cargoToml("=1.0.100")}, head: map[string]string{"Cargo.toml": cargoToml("1.0.100")},
			want: moves,
		},
	})
}

func gemspec(req string) string {
	return "Gem::Specification.new do |spec|\n  spec.name = \"mylib\"\n  spec.version = \"0.1.0\"\n  spec.add_dependency \"rails\", \"" + req + "\"\n  spec.add_development_dependency \"rspec\", \"~> 3.12\"\nend\n"
}

func TestBundlerResolution(t *testing.T) {
	runTreeCases(t, []treeCase{
		{
			name: "a gemspec's add_dependency",
			pins: []pin.Pin{ecoPin(pin.Bundler, "rails", "7.1.2")},
			base: map[string]string{"mylib.gemspec": gemspec("= 7.1.2")}, head: map[string]string{"mylib.gemspec": gemspec("~> 7.1")},
			want: moves,
		},
	})
}

const awsRoot = `terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "5.31.0"
    }
  }
}

module "net" {
  source = "./modules/net"
}
`

const awsLock = `provider "registry.terraform.io/hashicorp/aws" {
  version     = "5.31.0"
  constraints = "5.31.0"
  hashes = [
    "h1:AAAA",
  ]
}
`

func TestTerraformResolution(t *testing.T) {
	awsPin := []pin.Pin{ecoPin(pin.Terraform, "hashicorp/aws", "5.31.0")}
	vpc := "module \"vpc\" {\n  source  = \"terraform-aws-modules/vpc/aws\"\n  version = \"5.1.2\"\n}\n"
	base := map[string]string{"main.tf": awsRoot + vpc, ".terraform.lock.hcl": awsLock, "modules/net/main.tf": "resource \"aws_vpc\" \"this\" {}\n"}
	runTreeCases(t, []treeCase{
		{
			name: "a module block in override.tf has no source",
			pins: awsPin, base: base,
			head: with(base, map[string]string{"override.tf": "module \"vpc\" {\n  enable_nat_gateway = false\n}\n"}),
			want: NotApplicable,
		},
		{
			name: "a child module declares >= 5.0 while the root and the lock keep 5.31.0",
			pins: awsPin, base: base,
			head: with(base, map[string]string{"modules/net/versions.tf": "terraform {\n  required_providers {\n    aws = {\n      source  = \"hashicorp/aws\"\n      version = \">= 5.0\"\n    }\n  }\n}\n"}),
			want: NotApplicable,
		},
		{
			name: "OpenTofu's .tofu files are read",
			pins: awsPin,
			base: map[string]string{"main.tofu": awsRoot},
			head: map[string]string{"main.tofu": strings.Replace(awsRoot, `"5.31.0"`, `"5.32.1"`, 1)},
			want: moves,
		},
	})
}

func TestCargoLockSettlesALoosenedRequirement(t *testing.T) {
	lock := "version = 3\n\n[[package]]\nname = \"serde\"\nversion = \"1.0.100\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n"
	runTreeCases(t, []treeCase{{
		name: "=1.0.100 loosened to 1.0.100 while Cargo.lock keeps 1.0.100",
		pins: []pin.Pin{ecoPin(pin.Cargo, "serde", "1.0.100")},
		base: map[string]string{"Cargo.toml": cargoToml("=1.0.100"), "Cargo.lock": lock},
		head: map[string]string{"Cargo.toml": cargoToml("1.0.100"), "Cargo.lock": lock},
		want: NotApplicable,
	}})
}

func TestPinOfAnAbsentEcosystemIsAWarning(t *testing.T) {
	mavenPin := ecoPin(pin.Maven, jackson, "2.15.3")
	for _, c := range []struct {
		name    string
		files   []string
		warning bool
	}{
		{"a Gradle project satisfies a maven pin", []string{"settings.gradle.kts", "gradle/libs.versions.toml"}, false},
		{"a Maven project", []string{"pom.xml"}, false},
		{"a Python repository", []string{"pyproject.toml", "uv.lock"}, true},
		{"a POM under testdata does not count", []string{"pyproject.toml", "internal/testdata/pom.xml"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Evaluate(Input{Pins: []pin.Pin{mavenPin}, Config: DefaultConfig(), Present: pin.Present(c.files)})
			got := false
			for _, w := range r.Warnings {
				got = got || (w.Path == mavenPin.Source.Path && strings.Contains(w.Message, "no maven manifest"))
			}
			if got != c.warning || r.Verdict != NotApplicable {
				t.Fatalf("warning %v, want %v (verdict %s): %+v", got, c.warning, r.Verdict, r.Warnings)
			}
		})
	}
	if r := Evaluate(Input{Pins: []pin.Pin{mavenPin}, Config: DefaultConfig()}); len(r.Warnings) != 0 {
		t.Errorf("unknown presence warns: %+v", r.Warnings)
	}
}

func TestUnreadableUnchangedPOMs(t *testing.T) {
	broken := "<project><oops></project>\n"
	base := with(mavenReactor, map[string]string{"svc/src/it/broken/pom.xml": broken})
	jacksonPin := []pin.Pin{ecoPin(pin.Maven, jackson, "2.15.3")}
	guava := func(v string) string {
		return pom("tool", "  <dependencies><dependency><groupId>com.google.guava</groupId><artifactId>guava</artifactId><version>"+v+"</version></dependency></dependencies>")
	}
	runTreeCases(t, []treeCase{
		{
			name: "a broken POM among test resources does not fail an unrelated change",
			pins: jacksonPin, base: with(base, map[string]string{"tools/pom.xml": guava("32.1.3-jre")}),
			head: with(base, map[string]string{"tools/pom.xml": guava("33.0.0-jre")}),
			want: NotApplicable,
		},
		{
			name: "an unreadable parent of a changed module fails closed for a Maven pin",
			pins: jacksonPin,
			base: with(mavenReactor, map[string]string{"pom.xml": broken}),
			head: with(mavenReactor, map[string]string{"pom.xml": broken, "svc/pom.xml": strings.Replace(mavenReactor["svc/pom.xml"], "<artifactId>svc</artifactId>", "<artifactId>svc</artifactId><description>x</description>", 1)}),
			want: Error, says: []string{"pom.xml:1: pom.xml cannot be read"},
		},
		{
			name: "and is nothing for a repository without a Maven pin",
			pins: []pin.Pin{ecoPin(pin.Pip, "kopf", "1.40.1")},
			base: with(mavenReactor, map[string]string{"pom.xml": broken}),
			head: with(mavenReactor, map[string]string{"pom.xml": broken, "svc/pom.xml": strings.Replace(mavenReactor["svc/pom.xml"], "<artifactId>svc</artifactId>", "<artifactId>svc</artifactId><description>x</description>", 1)}),
			want: NotApplicable,
		},
	})
}

// withPostgres adds a dependency with its own version to a POM.
func withPostgres(pom string) string {
	return strings.Replace(pom, "  <dependencies>\n", "  <dependencies>\n    <dependency>\n      <groupId>org.postgresql</groupId>\n      <artifactId>postgresql</artifactId>\n      <version>42.7.1</version>\n    </dependency>\n", 1)
}

// TestBotClaimsAcrossMavenAndGradle: Dependabot's gradle metadata claiming
// a move of a package pinned for maven, which no file shows, is the
// cross-check error, as for the pin's own ecosystem.
func TestBotClaimsAcrossMavenAndGradle(t *testing.T) {
	p := ecoPin(pin.Maven, jackson, "2.15.3")
	r := Evaluate(Input{Pins: []pin.Pin{p}, Config: DefaultConfig(),
		BotUpdates: []pin.BotUpdate{{Ecosystem: pin.Gradle, Package: jackson, From: "2.15.3", To: "2.17.1", Source: pin.SourceDependabotCommit}}})
	if r.Verdict != Error || !strings.Contains(strings.Join(r.Errors, "\n"), "no manifest pinbot read shows the change") {
		t.Fatalf("verdict %s, errors %v; want the cross-check error", r.Verdict, r.Errors)
	}
}
