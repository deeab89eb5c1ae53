package pin

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// moreDiffCases are the change-detection cases of the ecosystems of
// ecosystems.go; they also seed the fuzz targets.
var moreDiffCases = []diffCase{
	{
		name: "cargo exact pin bumped in workspace dependencies",
		base: map[string]string{"Cargo.toml": "[workspace.dependencies]\nsysinfo = \"=0.25.2\"\nserde = \"1\"\n"},
		head: map[string]string{"Cargo.toml": "[workspace.dependencies]\nsysinfo = \"=0.25.3\"\nserde = \"1\"\n"},
		want: []Change{{Ecosystem: Cargo, Package: "sysinfo", Manifest: "Cargo.toml", Old: "=0.25.2", New: "=0.25.3"}},
	},
	{
		name: "cargo table form reformatted is no change",
		base: map[string]string{"a/Cargo.toml": "[dependencies]\nsysinfo = { version = \"=0.25.2\", default-features = false }\n"},
		head: map[string]string{"a/Cargo.toml": "[dependencies.sysinfo]\nversion = \"= 0.25.2\"\ndefault-features = false\nfeatures = [\"multithread\"]\n"},
	},
	{
		name: "cargo patch added redirects the crate",
		base: map[string]string{"Cargo.toml": "[dependencies]\nsysinfo = \"0.25.2\"\n"},
		head: map[string]string{"Cargo.toml": "[dependencies]\nsysinfo = \"0.25.2\"\n\n[patch.crates-io]\nsysinfo = { git = \"https://github.com/fork/sysinfo\", branch = \"fix\" }\n"},
		want: []Change{{Ecosystem: Cargo, Package: "sysinfo", Manifest: "Cargo.toml", New: "patch source {branch=fix,git=https://github.com/fork/sysinfo}"}},
	},
	{
		name: "cargo renamed dependency counts under the crate name",
		base: map[string]string{"Cargo.toml": "[dependencies]\nsi = { package = \"sysinfo\", version = \"0.25.2\" }\n"},
		head: map[string]string{"Cargo.toml": "[dependencies]\nsi = { package = \"sysinfo\", version = \"0.26.0\" }\n"},
		want: []Change{{Ecosystem: Cargo, Package: "sysinfo", Manifest: "Cargo.toml", Old: "^0.25.2", New: "^0.26.0"}}, // no Cargo.lock: caret ranges (ADR 0253)
	},
	{
		name: "cargo lock-only bump",
		base: map[string]string{"Cargo.lock": "version = 3\n\n[[package]]\nname = \"sysinfo\"\nversion = \"0.25.2\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n"},
		head: map[string]string{"Cargo.lock": "version = 3\n\n[[package]]\nname = \"sysinfo\"\nversion = \"0.25.3\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n"},
		want: []Change{{Ecosystem: Cargo, Package: "sysinfo", Manifest: "Cargo.lock", Old: "0.25.2", New: "0.25.3", Resolved: true}},
	},
	{
		name: "gemfile pin bumped, lock follows",
		base: map[string]string{"Gemfile": "source \"https://rubygems.org\"\ngem \"sidekiq\", \"7.2.4\"\n", "Gemfile.lock": "GEM\n  remote: https://rubygems.org/\n  specs:\n    sidekiq (7.2.4)\n      redis-client (>= 0.19.0)\n"},
		head: map[string]string{"Gemfile": "source \"https://rubygems.org\"\ngem 'sidekiq', '~> 7.3'\n", "Gemfile.lock": "GEM\n  remote: https://rubygems.org/\n  specs:\n    sidekiq (7.3.0)\n      redis-client (>= 0.22.0)\n"},
		want: []Change{
			{Ecosystem: Bundler, Package: "sidekiq", Manifest: "Gemfile", Old: "7.2.4", New: "~>7.3"},
			{Ecosystem: Bundler, Package: "sidekiq", Manifest: "Gemfile.lock", Old: "7.2.4", New: "7.3.0", Resolved: true},
		},
	},
	{
		name: "gemfile multi-line declaration and platforms are one version",
		base: map[string]string{"Gemfile": "gem \"nokogiri\",\n    \"= 1.16.6\"\n", "Gemfile.lock": "GEM\n  specs:\n    nokogiri (1.16.6-x86_64-linux)\n"},
		head: map[string]string{"Gemfile": "gem \"nokogiri\", \"=1.16.6\" # pinned\n", "Gemfile.lock": "GEM\n  specs:\n    nokogiri (1.16.6-aarch64-linux)\n    nokogiri (1.16.6-x86_64-linux)\n"},
	},
	{
		name: "composer exact pin bumped",
		base: map[string]string{"composer.json": `{"require": {"php": "^8.2", "guzzlehttp/guzzle": "7.8.1"}}`, "composer.lock": `{"packages": [{"name": "guzzlehttp/guzzle", "version": "7.8.1"}]}`},
		head: map[string]string{"composer.json": `{"require": {"php": "^8.3", "guzzlehttp/guzzle": "7.9.0"}}`, "composer.lock": `{"packages": [{"name": "guzzlehttp/guzzle", "version": "7.9.0"}]}`},
		want: []Change{
			{Ecosystem: Composer, Package: "guzzlehttp/guzzle", Manifest: "composer.json", Old: "7.8.1", New: "7.9.0"},
			{Ecosystem: Composer, Package: "guzzlehttp/guzzle", Manifest: "composer.lock", Old: "7.8.1", New: "7.9.0", Resolved: true},
		},
	},
	{
		name: "nuget property-driven version bumped",
		base: map[string]string{"src/Api/Api.csproj": "<Project><PropertyGroup><EfVersion>8.0.4</EfVersion></PropertyGroup><ItemGroup><PackageReference Include=\"Microsoft.EntityFrameworkCore\" Version=\"[$(EfVersion)]\" /></ItemGroup></Project>"},
		head: map[string]string{"src/Api/Api.csproj": "<Project><PropertyGroup><EfVersion>8.0.5</EfVersion></PropertyGroup><ItemGroup><PackageReference Include=\"Microsoft.EntityFrameworkCore\" Version=\"[$(EfVersion)]\" /></ItemGroup></Project>"},
		want: []Change{{Ecosystem: NuGet, Package: "microsoft.entityframeworkcore", Manifest: "src/Api/Api.csproj", Old: "[8.0.4]", New: "[8.0.5]"}},
	},
	{
		name: "nuget lock-only bump",
		base: map[string]string{"packages.lock.json": `{"version": 1, "dependencies": {"net8.0": {"Polly": {"type": "Direct", "resolved": "8.4.0"}}}}`},
		head: map[string]string{"packages.lock.json": `{"version": 1, "dependencies": {"net8.0": {"Polly": {"type": "Direct", "resolved": "8.4.1"}}}}`},
		want: []Change{{Ecosystem: NuGet, Package: "polly", Manifest: "packages.lock.json", Old: "8.4.0", New: "8.4.1", Resolved: true}},
	},
	{
		name: "maven property bump moves the dependency that uses it",
		base: map[string]string{"pom.xml": "<project><properties><jackson.version>2.17.1</jackson.version></properties><dependencies><dependency><groupId>com.fasterxml.jackson.core</groupId><artifactId>jackson-databind</artifactId><version>${jackson.version}</version></dependency></dependencies></project>"},
		head: map[string]string{"pom.xml": "<project><properties><jackson.version>2.17.2</jackson.version></properties><dependencies><dependency><groupId>com.fasterxml.jackson.core</groupId><artifactId>jackson-databind</artifactId><version>${jackson.version}</version></dependency></dependencies></project>"},
		want: []Change{{Ecosystem: Maven, Package: "com.fasterxml.jackson.core:jackson-databind", Manifest: "pom.xml", Old: "2.17.1", New: "2.17.2"}},
	},
	{
		name: "gradle catalog strictly bumped through version.ref, lockfile follows",
		base: map[string]string{"gradle/libs.versions.toml": "[versions]\nokhttp = { strictly = \"4.12.0\" }\n[libraries]\nokhttp = { module = \"com.squareup.okhttp3:okhttp\", version.ref = \"okhttp\" }\n", "gradle.lockfile": "com.squareup.okhttp3:okhttp:4.12.0=runtimeClasspath\nempty=\n"},
		head: map[string]string{"gradle/libs.versions.toml": "[versions]\nokhttp = { strictly = \"5.0.0-alpha.14\" }\n[libraries]\nokhttp = { module = \"com.squareup.okhttp3:okhttp\", version.ref = \"okhttp\" }\n", "gradle.lockfile": "com.squareup.okhttp3:okhttp:5.0.0-alpha.14=runtimeClasspath\nempty=\n"},
		want: []Change{
			{Ecosystem: Gradle, Package: "com.squareup.okhttp3:okhttp", Manifest: "gradle.lockfile", Old: "4.12.0", New: "5.0.0-alpha.14", Resolved: true},
			{Ecosystem: Gradle, Package: "com.squareup.okhttp3:okhttp", Manifest: "gradle/libs.versions.toml", Old: "4.12.0!!", New: "5.0.0-alpha.14!!"},
		},
	},
	{
		name: "terraform provider pin bumped in configuration and lock",
		base: map[string]string{
			"infra/versions.tf":         "terraform {\n  required_providers {\n    aws = {\n      source  = \"hashicorp/aws\"\n      version = \"= 5.31.0\"\n    }\n  }\n}\n",
			"infra/.terraform.lock.hcl": "provider \"registry.terraform.io/hashicorp/aws\" {\n  version = \"5.31.0\"\n}\n",
		},
		head: map[string]string{
			"infra/versions.tf":         "terraform {\n  required_providers {\n    aws = {\n      source  = \"hashicorp/aws\"\n      version = \"~> 5.32\"\n    }\n  }\n}\n",
			"infra/.terraform.lock.hcl": "provider \"registry.terraform.io/hashicorp/aws\" {\n  version = \"5.32.1\"\n}\n",
		},
		want: []Change{
			{Ecosystem: Terraform, Package: "hashicorp/aws", Manifest: "infra/.terraform.lock.hcl", Old: "5.31.0", New: "5.32.1", Resolved: true},
			{Ecosystem: Terraform, Package: "hashicorp/aws", Manifest: "infra/versions.tf", Old: "=5.31.0", New: "=5.32.1"}, // the lock's version meets ~>5.32 (ADR 0254)
		},
	},
	{
		name: "terraform module version bumped",
		base: map[string]string{"main.tf": "module \"vpc\" {\n  source  = \"terraform-aws-modules/vpc/aws\"\n  version = \"5.8.1\"\n  cidr = var.cidr\n}\n"},
		head: map[string]string{"main.tf": "module \"vpc\" {\n  source  = \"terraform-aws-modules/vpc/aws\"\n  version = \"5.9.0\"\n  cidr = var.cidr\n}\n"},
		want: []Change{{Ecosystem: Terraform, Package: "terraform-aws-modules/vpc/aws", Manifest: "main.tf", Old: "5.8.1", New: "5.9.0"}},
	},
	{
		name: "setup.cfg install_requires pin bumped",
		base: map[string]string{"setup.cfg": "[options]\ninstall_requires =\n    celery==5.3.6\n    redis>=5\n"},
		head: map[string]string{"setup.cfg": "[options]\ninstall_requires =\n    celery==5.4.0\n    redis>=5\n"},
		want: []Change{{Ecosystem: Pip, Package: "celery", Manifest: "setup.cfg", Old: "==5.3.6", New: "==5.4.0"}},
	},
	{
		name: "static setup.py through a module-level list",
		base: map[string]string{"setup.py": "from setuptools import setup\n\nREQUIRES = [\n    \"celery==5.3.6\",  # pinned\n]\n\nsetup(name=\"w\", install_requires=REQUIRES)\n"},
		head: map[string]string{"setup.py": "from setuptools import setup\n\nREQUIRES = [\n    \"celery==5.4.0\",\n]\n\nsetup(name=\"w\", install_requires=REQUIRES)\n"},
		want: []Change{{Ecosystem: Pip, Package: "celery", Manifest: "setup.py", Old: "==5.3.6", New: "==5.4.0"}},
	},
	{
		name: "compose image tag bumped",
		base: map[string]string{"deploy/compose.yaml": "services:\n  db:\n    image: postgres:16.3\n"},
		head: map[string]string{"deploy/compose.yaml": "services:\n  db:\n    image: postgres:16.4\n"},
		want: []Change{{Ecosystem: Docker, Package: "postgres", Manifest: "deploy/compose.yaml", Old: "16.3", New: "16.4"}},
	},
	{
		name: "pdm.lock bump",
		base: map[string]string{"pdm.lock": "[[package]]\nname = \"FastAPI\"\nversion = \"0.111.0\"\n"},
		head: map[string]string{"pdm.lock": "[[package]]\nname = \"FastAPI\"\nversion = \"0.111.1\"\n"},
		want: []Change{{Ecosystem: Pip, Package: "fastapi", Manifest: "pdm.lock", Old: "0.111.0", New: "0.111.1", Resolved: true}},
	},
}

// moreErrCases are malformed files of the added ecosystems: each must be an
// error naming the file and line.
var moreErrCases = []errCase{
	{"Cargo.toml", "[dependencies]\nsysinfo = \"=0.25.2\n", "Cargo.toml:2: parsing TOML"},
	{"Cargo.toml", "[package]\nname = \"x\"\n\n[dependencies]\nsysinfo = 25\n", "Cargo.toml:5: dependencies.sysinfo: want a version string or a table"},
	{"crates/a/Cargo.toml", "[dependencies]\nsysinfo = { features = [\"x\"] }\n", "crates/a/Cargo.toml:2: dependencies.sysinfo: table has no version"},
	{"Cargo.lock", "version = 3\n\n[[package]]\nname = \"a\"\nversion = \"1.0.0\"\n\n[[package]]\nname = \"sysinfo\"\n", "Cargo.lock:7: package entry 2 needs a name and a version"},
	{"Gemfile", "source \"https://rubygems.org\"\n\ngem \"sidekiq\", ENV.fetch(\"SIDEKIQ_VERSION\")\n", "Gemfile:3: gem \"sidekiq\": cannot read"},
	{"Gemfile", "gem \"rails\"\neval_gemfile \"Gemfile.local\"\n", "Gemfile:2: eval_gemfile is not read"},
	{"Gemfile.lock", "GEM\n  remote: https://rubygems.org/\n  specs:\n    sidekiq 7.2.4\n", "Gemfile.lock:4: spec \"sidekiq 7.2.4\""},
	{"composer.json", "{\n  \"require\": {\n    \"a/b\": \"1.0\",\n  }\n}\n", "composer.json:4: parsing JSON"},
	{"composer.json", "{\n  \"require\": [\"a/b\"]\n}\n", "composer.json:2: require: want an object"},
	{"composer.lock", "{\"packages\": [\n{\"name\": \"a/b\"}]}", "composer.lock:2: package \"a/b\" needs a name and a version"},
	{"src/Api.csproj", "<Project>\n  <ItemGroup>\n    <PackageReference Include=\"Polly\" Version=\"8.4.0\">\n  </ItemGroup>\n</Project>\n", "src/Api.csproj:4: parsing XML"},
	{"packages.lock.json", "{\"dependencies\": {\"net8.0\": {\n\"Polly\": {\"type\": \"Direct\"}}}}", "packages.lock.json:2: net8.0 Polly has no resolved version"},
	{"pom.xml", "<project>\n<dependencies>\n</project>\n", "pom.xml:3: parsing XML"},
	{"gradle/libs.versions.toml", "[versions]\nokhttp = \"4.12.0\"\n[libraries]\nokhttp = { module = \"com.squareup.okhttp3:okhttp\", version.ref = \"okhtp\" }\n", "gradle/libs.versions.toml:4: okhttp: version.ref \"okhtp\" is not in [versions]"},
	{"gradle/libs.versions.toml", "[libraries]\nslf4j = \"org.slf4j-slf4j-api-2.0.13\"\n", "gradle/libs.versions.toml:2: libraries.slf4j"},
	{"main.tf", "terraform {\n  required_providers {\n    aws = {\n      version = \"5.31.0\"\n  }\n}\n", "main.tf:"},
	{"main.tf", "terraform {\n  required_providers {\n    aws = {\n      source  = \"hashicorp/aws\"\n      version = var.aws_version\n    }\n  }\n}\n", "main.tf:3: required_providers.aws: version: want a literal string"},
	{"main.tf", "module \"vpc\" {\n  version = \"5.8.1\"\n}\n", "main.tf:1: module \"vpc\" has no source"},
	{".terraform.lock.hcl", "provider \"registry.terraform.io/hashicorp/aws\" {\n  constraints = \"5.31.0\"\n}\n", ".terraform.lock.hcl:1: provider \"registry.terraform.io/hashicorp/aws\" has no version"},
	{"setup.py", "from setuptools import setup\n\nsetup(\n    install_requires=open(\"requirements.txt\").read().splitlines(),\n)\n", "setup.py:4: install_requires: a dynamic setup.py"},
	{"setup.py", "from setuptools import setup\nreqs = [l for l in open('r.txt')]\nsetup(install_requires=reqs)\n", "setup.py:2: install_requires: a dynamic setup.py"},
	{"setup.py", "setup(install_requires=BASE)\n", "setup.py:1: install_requires = BASE: a dynamic setup.py"},
	{"setup.py", "setup(install_requires=[f\"celery=={V}\"])\n", "setup.py:1: install_requires: a dynamic setup.py"},
	{"setup.cfg", "[options]\ninstall_requires = file: requirements.in\n", "setup.cfg:2: options.install_requires: \"file: requirements.in\" is not a static requirement list"},
	{"setup.cfg", "[options]\ninstall_requires =\n    celery===\n", "setup.cfg:3: options.install_requires: invalid requirement"},
	{"compose.yaml", "services:\n  db:\n    image: [postgres]\n", "compose.yaml:3: services.db.image: want an image reference"},
	{"pdm.lock", "[[package]]\nversion = \"1.0\"\n", "pdm.lock:1: package entry 1 has no name"},
	{"gradle.lockfile", "# comment\ncom.squareup.okhttp3:okhttp=runtimeClasspath\n", "gradle.lockfile:2: \"com.squareup.okhttp3:okhttp=runtimeClasspath\""},
}

// moreLeavesCases say whether a value written in an added ecosystem keeps a
// pin, per that ecosystem's rules.
var moreLeavesCases = []struct {
	eco      Ecosystem
	pkg, pin string
	value    string
	leaves   bool
}{
	{Cargo, "sysinfo", "0.25.2", "=0.25.2", false},
	{Cargo, "sysinfo", "0.25.2", "0.25.2", false}, // caret on the pinned version: the lock guards it
	{Cargo, "sysinfo", "0.25.2", "^0.25.2", true}, // a caret range (ADR 0253)
	{Cargo, "sysinfo", "=0.25.2", "=0.25.2", false},
	{Cargo, "sysinfo", "0.25.2", "=0.25.3", true},
	{Cargo, "sysinfo", "0.25.2", "0.25", true},
	{Cargo, "sysinfo", "0.25.2", "~0.25.2", true},
	{Cargo, "sysinfo", "0.25.2", ">=0.25.2, <0.26", true},
	{Cargo, "sysinfo", "0.25.2", "*", true},
	{Cargo, "sysinfo", "0.25.2", "patch source {git=https://x}", true},
	{Cargo, "sysinfo", "0.25.2", "0.25.2 source git+https://github.com/fork/sysinfo#abc", true},
	{Cargo, "sysinfo", "0.25.2", "=0.25.2 (registry acme)", true},
	{Cargo, "sysinfo", "0.25.2", "0.25.2 || 0.26.0", true},
	{Bundler, "sidekiq", "7.2.4", "7.2.4", false},
	{Bundler, "sidekiq", "7.2.4", "=7.2.4", false},
	{Bundler, "sidekiq", "7.2.4", "~>7.2.4", true},
	{Bundler, "sidekiq", "7.2.4", "7.2.4, <8", true},
	{Bundler, "sidekiq", "7.2.4", "7.2.4 source git https://github.com/fork/sidekiq abc", true},
	{Bundler, "sidekiq", "7.2.4", "*", true},
	{Composer, "guzzlehttp/guzzle", "7.8.1", "7.8.1", false},
	{Composer, "guzzlehttp/guzzle", "7.8.1", "v7.8.1", false},
	{Composer, "guzzlehttp/guzzle", "v7.8.1", "==7.8.1", false},
	{Composer, "guzzlehttp/guzzle", "7.8.1", "^7.8.1", true},
	{Composer, "guzzlehttp/guzzle", "7.8.1", "7.8.*", true},
	{Composer, "guzzlehttp/guzzle", "7.8.1", "7.8.1 || 7.9.0", true},
	{Composer, "guzzlehttp/guzzle", "7.8.1", "dev-main 9b2e4d6", true},
	{NuGet, "Polly", "8.4.0", "[8.4.0]", false},
	{NuGet, "Polly", "8.4.0", "8.4.0", false}, // a minimum on the pinned version: the lock guards it
	{NuGet, "Polly", "8.4.0", "8.4.0.0", false},
	{NuGet, "Polly", "8.4.0", "[8.4.0,9.0.0)", true},
	{NuGet, "Polly", "8.4.0", "8.*", true},
	{NuGet, "Polly", "8.4.0", "8.4.1", true},
	{Maven, "com.fasterxml.jackson.core:jackson-databind", "2.17.1", "2.17.1", false},
	{Maven, "com.fasterxml.jackson.core:jackson-databind", "2.17.1", "[2.17.1]", false},
	{Maven, "com.fasterxml.jackson.core:jackson-databind", "2.17.1", "[2.17.1,)", true},
	{Maven, "com.fasterxml.jackson.core:jackson-databind", "2.17.1", "2.17.2", true},
	{Maven, "com.fasterxml.jackson.core:jackson-databind", "2.17.1", "LATEST", true},
	{Terraform, "hashicorp/aws", "5.31.0", "5.31.0", false},
	{Terraform, "hashicorp/aws", "5.31.0", "=5.31.0", false},
	{Terraform, "registry.terraform.io/hashicorp/aws", "=5.31.0", "5.31.0", false},
	{Terraform, "hashicorp/aws", "5.31.0", "~>5.31.0", true},
	{Terraform, "hashicorp/aws", "5.31.0", ">=5.31.0, <6.0.0", true},
	{Terraform, "hashicorp/aws", "5.31.0", "*", true},
	{Gradle, "com.squareup.okhttp3:okhttp", "4.12.0", "4.12.0!!", false},
	{Gradle, "com.squareup.okhttp3:okhttp", "4.12.0", "4.12.0", false},
	{Gradle, "com.squareup.okhttp3:okhttp", "4.12.0", "[4.12.0]", false},
	{Gradle, "com.squareup.okhttp3:okhttp", "4.12.0", "4.+", true},
	{Gradle, "com.squareup.okhttp3:okhttp", "4.12.0", "latest.release", true},
	{Gradle, "com.squareup.okhttp3:okhttp", "4.12.0", "4.12.0 prefer 4.12.1", true},
	{Gradle, "com.squareup.okhttp3:okhttp", "4.12.0", "[4.12.0, 5.0[!!", true},
}

func TestMoreEcosystemsDiff(t *testing.T) {
	for _, tt := range moreDiffCases {
		t.Run(tt.name, func(t *testing.T) {
			checkDiffBothWays(t, tt.base, tt.head, tt.want)
		})
	}
}

func TestMoreEcosystemsErrors(t *testing.T) {
	for _, tt := range moreErrCases {
		t.Run(tt.want, func(t *testing.T) {
			for _, side := range []string{"head", "base"} {
				bad := map[string][]byte{side: []byte(tt.content)}
				_, err := DiffFiles([]FilePair{{Path: tt.path, Base: bad["base"], Head: bad["head"]}})
				if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
					t.Fatalf("%s: error = %v, want prefix %q", side, err, tt.want)
				}
				var re *ReadError
				if !errors.As(err, &re) || re.Path != tt.path || re.Line == 0 {
					t.Errorf("%s: error %v is not a *ReadError with a line for %s", side, err, tt.path)
				}
			}
		})
	}
}

func TestMoreEcosystemsLeaves(t *testing.T) {
	for _, tt := range moreLeavesCases {
		p := Pin{Ecosystem: tt.eco, Package: tt.pkg, Version: tt.pin}
		if got := p.Leaves(tt.value); got != tt.leaves {
			t.Errorf("Pin{%s %s %s}.Leaves(%q) = %v, want %v", tt.eco, tt.pkg, tt.pin, tt.value, got, tt.leaves)
		}
		c := Change{Ecosystem: tt.eco, Package: NormalizeName(tt.eco, tt.pkg), New: tt.value}
		if got := (Pin{Ecosystem: tt.eco, Package: tt.pkg, Version: tt.pin, Enforced: true}).Moves(c); got != tt.leaves {
			t.Errorf("Pin{%s %s}.Moves(%+v) = %v, want %v", tt.pkg, tt.pin, c, got, tt.leaves)
		}
	}
}

func TestMoreEcosystemsNames(t *testing.T) {
	for _, tt := range []struct {
		eco        Ecosystem
		name, want string
	}{
		{Cargo, "Serde_JSON", "serde-json"},
		{Bundler, "Sidekiq", "sidekiq"},
		{Composer, "GuzzleHttp/Guzzle", "guzzlehttp/guzzle"},
		{NuGet, "Microsoft.EntityFrameworkCore", "microsoft.entityframeworkcore"},
		{Maven, "com.fasterxml.jackson.core:jackson-databind", "com.fasterxml.jackson.core:jackson-databind"},
		{Gradle, "com.squareup.okhttp3:okhttp", "com.squareup.okhttp3:okhttp"},
		{Terraform, "registry.terraform.io/HashiCorp/AWS", "hashicorp/aws"},
	} {
		if got := NormalizeName(tt.eco, tt.name); got != tt.want {
			t.Errorf("NormalizeName(%s, %q) = %q, want %q", tt.eco, tt.name, got, tt.want)
		}
		p := Pin{Ecosystem: tt.eco, Package: tt.name, Version: "1"}
		if !p.Matches(Change{Ecosystem: tt.eco, Package: tt.want}) {
			t.Errorf("pin %q does not match change %q", tt.name, tt.want)
		}
	}
	for _, s := range []string{"cargo", "Rust", "crates.io"} {
		if e, ok := ParseEcosystem(s); !ok || e != Cargo {
			t.Errorf("ParseEcosystem(%q) = %q, %v; want cargo", s, e, ok)
		}
	}
	if e, ok := ParseEcosystem("cobol"); ok || e != "cobol" {
		t.Errorf("ParseEcosystem(cobol) = %q, %v; want unknown", e, ok)
	}
}

// moreFuzz runs checkReader on the named files, seeded with the table
// cases and every testdata file.
func moreFuzz(f *testing.F, names ...string) {
	addFileSeeds(f)
	for _, c := range moreDiffCases {
		for _, m := range []map[string]string{c.base, c.head} {
			for _, content := range m {
				f.Add([]byte(content))
			}
		}
	}
	for _, c := range moreErrCases {
		f.Add([]byte(c.content))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, n := range names {
			checkReader(t, n, data)
		}
	})
}

func FuzzCargo(f *testing.F)    { moreFuzz(f, "Cargo.toml", "Cargo.lock") }
func FuzzBundler(f *testing.F)  { moreFuzz(f, "Gemfile", "Gemfile.lock") }
func FuzzComposer(f *testing.F) { moreFuzz(f, "composer.json", "composer.lock") }
func FuzzNuGet(f *testing.F) {
	moreFuzz(f, "src/Api/Api.csproj", "Directory.Packages.props", "packages.config", "packages.lock.json")
}
func FuzzMaven(f *testing.F)      { moreFuzz(f, "pom.xml", "svc/pom.xml") }
func FuzzTerraform(f *testing.F)  { moreFuzz(f, "infra/main.tf", ".terraform.lock.hcl") }
func FuzzSetuptools(f *testing.F) { moreFuzz(f, "setup.cfg", "setup.py", "pdm.lock") }
func FuzzCompose(f *testing.F)    { moreFuzz(f, "docker-compose.yml") }
func FuzzGradle(f *testing.F) {
	f.Add([]byte("plugins {\n    id 'org.springframework.boot' version '3.5.13' /* c */\n    kotlin(\"jvm\") version \"2.0.21\"\n}\n"))
	moreFuzz(f, "gradle/libs.versions.toml", "gradle.lockfile", "build.gradle", "settings.gradle.kts")
}

// moreBotCases are bot metadata of the added ecosystems, as Dependabot and
// Renovate write them: the ecosystem each reveals, and the update.
var moreBotCases = []struct {
	title, body string
	want        BotUpdate
}{
	{
		title: "build(deps): bump sysinfo from 0.25.2 to 0.25.3",
		want:  BotUpdate{Package: "sysinfo", From: "0.25.2", To: "0.25.3", Source: SourceTitle},
	},
	{
		title: "chore(deps): update terraform aws to v5.32.1",
		want:  BotUpdate{Ecosystem: Terraform, Package: "aws", To: "v5.32.1", Source: SourceTitle},
	},
	{
		title: "fix(deps): update rust crate sysinfo to 0.25.3",
		body: "| Package | Type | Update | Change |\n|---|---|---|---|\n" +
			"| [sysinfo](https://github.com/GuillaumeGomez/sysinfo) | workspace.dependencies | patch | `=0.25.2` -> `=0.25.3` |\n",
		want: BotUpdate{Ecosystem: Cargo, Package: "sysinfo", To: "0.25.3", Source: SourceTitle},
	},
	{
		body: "| Package | Change | Age | Confidence |\n|---|---|---|---|\n" +
			"| [sysinfo](https://github.com/GuillaumeGomez/sysinfo) | `0.25.2` → `0.25.3` | [![age](https://developer.mend.io/api/mc/badges/age/crate/sysinfo/0.25.3?slim=true)](https://docs.renovatebot.com/merge-confidence/) | |\n",
		want: BotUpdate{Ecosystem: Cargo, Package: "sysinfo", From: "0.25.2", To: "0.25.3", Source: SourceRenovateBody},
	},
}

func TestMoreEcosystemsDatasources(t *testing.T) {
	for ds, want := range map[string]Ecosystem{"crate": Cargo, "rubygems": Bundler, "packagist": Composer, "nuget": NuGet, "maven": ""} {
		body := "| Package | Change | Age |\n|---|---|---|\n| [x](https://example.com/x) | `1.0.0` -> `1.0.1` | [![age](https://developer.mend.io/api/mc/badges/age/" + ds + "/x/1.0.1?slim=true)](https://docs.renovatebot.com/merge-confidence/) |\n"
		us := ParseRenovateBody(body)
		if len(us) != 1 || us[0].Ecosystem != want {
			t.Errorf("datasource %s: %+v, want ecosystem %q", ds, us, want)
		}
	}
}

func TestMoreEcosystemsBotMetadata(t *testing.T) {
	for _, tt := range moreBotCases {
		var got []BotUpdate
		if tt.title != "" {
			got = ParseTitle(tt.title)
		} else {
			got = ParseRenovateBody(tt.body)
		}
		if d := cmp.Diff([]BotUpdate{tt.want}, got); d != "" {
			t.Errorf("%q%q (-want +got):\n%s", tt.title, tt.body, d)
		}
		if tt.title != "" && tt.body != "" {
			if us := ParseRenovateBody(tt.body); len(us) != 1 || us[0].To != "=0.25.3" {
				t.Errorf("ParseRenovateBody = %+v", us)
			}
		}
	}
}

func TestMoreEcosystemsFromBranch(t *testing.T) {
	for branch, want := range map[string]Ecosystem{
		"dependabot/cargo/sysinfo-0.25.3":                                     Cargo,
		"dependabot/cargo/crates/agent/sysinfo-0.25.3":                        Cargo,
		"dependabot/bundler/sidekiq-7.3.0":                                    Bundler,
		"dependabot/composer/guzzlehttp/guzzle-7.9.0":                         Composer,
		"dependabot/nuget/src/Api/Polly-8.4.1":                                NuGet,
		"dependabot/maven/com.fasterxml.jackson.core-jackson-databind-2.17.2": Maven,
		"dependabot/gradle/com.squareup.okhttp3-okhttp-5.0.0":                 Gradle,
	} {
		if got := EcosystemFromBranch(branch); got != want {
			t.Errorf("EcosystemFromBranch(%q) = %q, want %q", branch, got, want)
		}
	}
}

// TestMavenUnresolved: a version Maven would take from a property no POM
// in the repository defines is an *Unresolved of that package with its
// line (ADR 0251), which fails a PR only for a pin it concerns; it is no
// longer a ReadError that failed every PR of the repository.
func TestMavenUnresolved(t *testing.T) {
	for _, tt := range []struct{ path, content, want string }{
		{"pom.xml", "<project>\n  <dependencies>\n    <dependency><groupId>a</groupId><artifactId>b</artifactId><version>${b.version}</version></dependency>\n  </dependencies>\n</project>\n",
			"pom.xml:3: b takes its version from ${b.version}, which no POM or .mvn/maven.config in the repository defines"},
		{"svc/pom.xml", "<project>\n  <parent><groupId>org.acme</groupId><artifactId>parent</artifactId><version>1</version><relativePath/></parent>\n  <dependencies>\n    <dependency><groupId>a</groupId><artifactId>b</artifactId><version>${b.version}</version></dependency>\n  </dependencies>\n</project>\n",
			"svc/pom.xml:4: b takes its version from ${b.version}, defined by the parent POM org.acme:parent outside the repository"},
	} {
		_, err := DiffFiles([]FilePair{{Path: tt.path, Head: []byte(tt.content)}})
		var u *Unresolved
		for _, e := range leafErrors(err) {
			if x, ok := e.(*Unresolved); ok && x.Package == "a:b" {
				u = x
			}
		}
		if u == nil || u.Manifest != tt.path || u.Ecosystem != Maven {
			t.Fatalf("%s: error %v holds no *Unresolved of maven a:b in %s", tt.path, err, tt.path)
		}
		if u.Error() != tt.want {
			t.Errorf("%s: error %q, want %q", tt.path, u, tt.want)
		}
		if !u.Concerns(Pin{Ecosystem: Maven, Package: "a:b", Version: "1"}) || u.Concerns(Pin{Ecosystem: Maven, Package: "a:c", Version: "1"}) ||
			!u.Concerns(Pin{Ecosystem: Gradle, Package: "a:b", Version: "1"}) || u.Concerns(Pin{Ecosystem: Pip, Package: "a:b", Version: "1"}) {
			t.Errorf("%s: Concerns does not single out a:b of the Maven namespace", tt.path)
		}
	}
}

// TestMSBuildUnresolved: a version from a property no file MSBuild
// evaluates defines is an *Unresolved of that package (ADR 0252).
func TestMSBuildUnresolved(t *testing.T) {
	content := "<Project>\n  <ItemGroup>\n    <PackageReference Include=\"Polly\" Version=\"$(PollyVersion)\" />\n  </ItemGroup>\n</Project>\n"
	_, err := DiffFiles([]FilePair{{Path: "src/Api.csproj", Head: []byte(content)}})
	var u *Unresolved
	if !errors.As(err, &u) || u.Manifest != "src/Api.csproj" || u.Package != "polly" || u.Line != 3 || u.Ecosystem != NuGet {
		t.Fatalf("error %v is not an *Unresolved of nuget polly at src/Api.csproj:3", err)
	}
	want := "src/Api.csproj:3: Polly's version $(PollyVersion) cannot be resolved: $(PollyVersion) is set in no file MSBuild evaluates for src/Api.csproj that pinbot can read"
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}
