// Package inputcases holds the repositories of issue 36, item 1: for each
// resolution input the issue names, a repository pinning a package and a
// pull request that changes that input alone and moves (or may move) the
// pinned version. The source, CLI and App tests share them, so that the
// three ways a pull request reaches pinbot are tested on the same bytes.
package inputcases

import (
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// Case is a repository at base and a pull request changing one resolution
// input.
type Case struct {
	// Name names the case (the input's file name).
	Name string
	// Input is the path of the one input the pull request changes.
	Input string
	// Base are the base branch's files, the ADR included.
	Base map[string]string
	// Head are the files the pull request writes: Input alone.
	Head map[string]string
	// Block is true when pinbot resolves the input and must block (the
	// pinned version moves); false when it must fail closed naming Input.
	// A reader added later may turn an error case into a block; both are
	// acceptable where Either is set.
	Block, Either bool
}

// ADR writes an accepted decision record pinning pkg of eco at version.
func ADR(eco pin.Ecosystem, pkg, version string) string {
	return "---\nstatus: accepted\npins:\n  - ecosystem: " + string(eco) + "\n    package: \"" + pkg + "\"\n    version: \"" + version + "\"\n---\n# 1. Pin " + pkg + "\n\nWe pin it.\n"
}

// ADRPath is where the cases keep their record.
const ADRPath = "docs/adr/0001-pin.md"

func files(eco pin.Ecosystem, pkg, version string, kv ...string) map[string]string {
	m := map[string]string{ADRPath: ADR(eco, pkg, version)}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

const csproj = `<Project Sdk="Microsoft.NET.Sdk">
  <Import Project="../../build/Versions.props" />
  <PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup>
  <ItemGroup>
    <PackageReference Include="Newtonsoft.Json" Version="$(NewtonsoftJsonVersion)" />
  </ItemGroup>
</Project>
`

func versionsProps(v string) string {
	return "<Project>\n  <PropertyGroup>\n    <NewtonsoftJsonVersion>" + v + "</NewtonsoftJsonVersion>\n  </PropertyGroup>\n</Project>\n"
}

const pom = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>app</artifactId>
  <version>1.0.0</version>
  <dependencies>
    <dependency>
      <groupId>com.fasterxml.jackson.core</groupId>
      <artifactId>jackson-databind</artifactId>
      <version>${jackson.version}</version>
    </dependency>
  </dependencies>
</project>
`

const packageJSON = "{\n  \"name\": \"web\",\n  \"version\": \"1.0.0\",\n  \"dependencies\": {\n    \"left-pad\": \"1.3.0\"\n  }\n}\n"

const buildGradle = "plugins { id 'java' }\n\ndependencies {\n    implementation \"com.google.guava:guava:${guavaVersion}\"\n    implementation 'org.jetbrains.kotlin:kotlin-stdlib'\n}\n"

const mainTF = "terraform {\n  required_providers {\n    aws = {\n      source  = \"hashicorp/aws\"\n      version = \"5.40.0\"\n    }\n  }\n}\n"

const chartYAML = "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n  - name: redis\n    version: 18.1.0\n    repository: https://charts.bitnami.com/bitnami\n"

// Cases are the inputs issue 36 names, each changed alone.
func Cases() []Case {
	return []Case{
		{Name: "imported Versions.props", Input: "build/Versions.props", Block: true,
			Base: files(pin.NuGet, "Newtonsoft.Json", "13.0.1", "src/App/App.csproj", csproj, "build/Versions.props", versionsProps("13.0.1")),
			Head: map[string]string{"build/Versions.props": versionsProps("13.0.3")}},
		{Name: "global.json", Input: "global.json",
			Base: files(pin.NuGet, "Microsoft.AspNetCore.App.Ref", "8.0.0", "src/App/App.csproj", csproj, "build/Versions.props", versionsProps("13.0.1"),
				"global.json", "{\n  \"sdk\": { \"version\": \"8.0.100\" }\n}\n"),
			Head: map[string]string{"global.json": "{\n  \"sdk\": { \"version\": \"9.0.100\" }\n}\n"}},
		{Name: ".npmrc", Input: ".npmrc",
			Base: files(pin.NPM, "left-pad", "1.3.0", "package.json", packageJSON, ".npmrc", "registry=https://registry.npmjs.org/\n"),
			Head: map[string]string{".npmrc": "registry=https://npm.example.com/\n"}},
		{Name: "pnpm-workspace.yaml", Input: "pnpm-workspace.yaml", Either: true,
			Base: files(pin.NPM, "left-pad", "1.3.0", "package.json", strings.Replace(packageJSON, `"1.3.0"`, `"catalog:"`, 1),
				"pnpm-workspace.yaml", "packages:\n  - .\ncatalog:\n  left-pad: 1.3.0\n"),
			Head: map[string]string{"pnpm-workspace.yaml": "packages:\n  - .\ncatalog:\n  left-pad: 1.3.1\n"}},
		{Name: ".cargo/config.toml", Input: ".cargo/config.toml",
			Base: files(pin.Cargo, "serde", "1.0.200", "Cargo.toml", "[package]\nname = \"app\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"=1.0.200\"\n",
				".cargo/config.toml", "[net]\ngit-fetch-with-cli = true\n"),
			Head: map[string]string{".cargo/config.toml": "[net]\ngit-fetch-with-cli = true\n\n[patch.crates-io]\nserde = { git = \"https://github.com/serde-rs/serde\", tag = \"v1.0.210\" }\n"}},
		{Name: ".mvn/maven.config", Input: ".mvn/maven.config", Block: true,
			Base: files(pin.Maven, "com.fasterxml.jackson.core:jackson-databind", "2.15.3", "pom.xml", pom, ".mvn/maven.config", "-Djackson.version=2.15.3\n"),
			Head: map[string]string{".mvn/maven.config": "-Djackson.version=2.17.1\n"}},
		{Name: "gradle.properties", Input: "gradle.properties", Either: true,
			Base: files(pin.Gradle, "com.google.guava:guava", "33.0.0-jre", "build.gradle", buildGradle, "gradle.properties", "guavaVersion=33.0.0-jre\n"),
			Head: map[string]string{"gradle.properties": "guavaVersion=33.2.1-jre\n"}},
		{Name: "gradle wrapper", Input: "gradle/wrapper/gradle-wrapper.properties",
			Base: files(pin.Gradle, "org.jetbrains.kotlin:kotlin-stdlib", "1.9.20", "build.gradle", buildGradle, "gradle.properties", "guavaVersion=33.0.0-jre\n",
				"gradle/wrapper/gradle-wrapper.properties", "distributionUrl=https\\://services.gradle.org/distributions/gradle-8.5-bin.zip\n"),
			Head: map[string]string{"gradle/wrapper/gradle-wrapper.properties": "distributionUrl=https\\://services.gradle.org/distributions/gradle-8.10-bin.zip\n"}},
		{Name: "buildSrc", Input: "buildSrc/src/main/kotlin/Versions.kt",
			Base: files(pin.Gradle, "com.google.guava:guava", "33.0.0-jre", "build.gradle", buildGradle, "gradle.properties", "guavaVersion=33.0.0-jre\n",
				"buildSrc/src/main/kotlin/Versions.kt", "object Versions { const val guava = \"33.0.0-jre\" }\n"),
			Head: map[string]string{"buildSrc/src/main/kotlin/Versions.kt": "object Versions { const val guava = \"33.2.1-jre\" }\n"}},
		{Name: ".terraformrc", Input: ".terraformrc",
			Base: files(pin.Terraform, "hashicorp/aws", "5.40.0", "main.tf", mainTF, ".terraformrc", "plugin_cache_dir = \"$HOME/.terraform.d/plugin-cache\"\n"),
			Head: map[string]string{".terraformrc": "provider_installation {\n  filesystem_mirror {\n    path    = \"mirror\"\n    include = [\"hashicorp/aws\"]\n  }\n}\n"}},
		{Name: "compose .env", Input: "deploy/.env", Block: true,
			Base: files(pin.Docker, "redis", "7.2.4", "deploy/compose.yaml", "services:\n  cache:\n    image: redis:${REDIS_TAG}\n", "deploy/.env", "REDIS_TAG=7.2.4\n"),
			Head: map[string]string{"deploy/.env": "REDIS_TAG=7.4.0\n"}},
		// Files of any name a compose file or a kustomization names (ADR
		// 0360): no pattern matches them; what names them is read.
		{Name: "compose extends file of any name", Input: "deploy/common.yml", Block: true,
			Base: files(pin.Docker, "redis", "7.2.4", "deploy/compose.yaml", "services:\n  cache:\n    extends: {file: common.yml, service: cache}\n", "deploy/common.yml", "services:\n  cache:\n    image: redis:7.2.4\n"),
			Head: map[string]string{"deploy/common.yml": "services:\n  cache:\n    image: redis:7.4.0\n"}},
		{Name: "compose include of any name", Input: "stacks/data.yml", Block: true,
			Base: files(pin.Docker, "redis", "7.2.4", "compose.yaml", "include:\n  - stacks/data.yml\n", "stacks/data.yml", "services:\n  cache:\n    image: redis:7.2.4\n"),
			Head: map[string]string{"stacks/data.yml": "services:\n  cache:\n    image: redis:7.4.0\n"}},
		{Name: "kustomize patch file", Input: "deploy/overlays/prod/redis-image.yaml", Block: true,
			Base: files(pin.Docker, "redis", "7.2.4", "deploy/overlays/prod/kustomization.yaml", "resources:\n  - ../../base\npatches:\n  - path: redis-image.yaml\n",
				"deploy/overlays/prod/redis-image.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cache\nspec:\n  template:\n    spec:\n      containers:\n        - name: redis\n          image: redis:7.2.4\n"),
			Head: map[string]string{"deploy/overlays/prod/redis-image.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cache\nspec:\n  template:\n    spec:\n      containers:\n        - name: redis\n          image: redis:7.4.0\n"}},
		{Name: "docker-bake.hcl", Input: "docker-bake.hcl",
			Base: files(pin.Docker, "redis", "7.2.4", "Dockerfile", "ARG REDIS_TAG=7.2.4\nFROM redis:${REDIS_TAG}\n",
				"docker-bake.hcl", "target \"default\" {\n  args = { REDIS_TAG = \"7.2.4\" }\n}\n"),
			Head: map[string]string{"docker-bake.hcl": "target \"default\" {\n  args = { REDIS_TAG = \"7.4.0\" }\n}\n"}},
		{Name: "charts/*.tgz", Input: "charts/app/charts/redis-18.1.0.tgz",
			Base: files(pin.Helm, "redis", "18.1.0", "charts/app/Chart.yaml", chartYAML, "charts/app/charts/redis-18.1.0.tgz", "\x1f\x8b\x08\x00redis-18.1.0"),
			Head: map[string]string{"charts/app/charts/redis-18.1.0.tgz": "\x1f\x8b\x08\x00redis-19.0.0"}},
	}
}
