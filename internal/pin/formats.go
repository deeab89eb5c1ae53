package pin

import (
	"path"
	"strings"
)

// Format is one kind of file that declares or locks dependencies of an
// ecosystem. The formats table is the one place that knows which files pinbot
// reads and which it knows of but cannot read: IsManifest, Diff and the
// "cannot read X, which may move pin Y" rule all work from it, and a new
// ecosystem plugs in by adding rows.
type Format struct {
	// Name names the format in messages ("yarn.lock", "pip requirements").
	Name string
	// Ecosystem is the ecosystem whose pins a file of this format can move.
	Ecosystem Ecosystem
	// match reports whether a cleaned, slash-separated, repository-relative
	// path is of this format.
	match func(p string) bool
	// read parses a file of this format; nil means pinbot knows the format
	// but has no reader for it, so a change to such a file may move a pin
	// unseen.
	read reader
}

// Readable reports whether pinbot reads files of this format. A change to a
// file of an unreadable format, in a repository with an enforced pin of its
// ecosystem, must be an error: it may move the pin.
func (f Format) Readable() bool { return f.read != nil }

// base matches files with one of these exact base names.
func base(names ...string) func(string) bool {
	return func(p string) bool {
		b := path.Base(p)
		for _, n := range names {
			if b == n {
				return true
			}
		}
		return false
	}
}

// formats lists every format pinbot knows; the first match decides. New
// ecosystems append their rows through moreFormats (ecosystems.go).
var formats = append(coreFormats, moreFormats...)

// coreFormats are the formats of the first six ecosystems.
var coreFormats = []Format{
	// Python.
	{Name: "pyproject.toml", Ecosystem: Pip, match: base("pyproject.toml"), read: readPyproject},
	{Name: "uv.lock", Ecosystem: Pip, match: base("uv.lock"), read: readUVLock},
	{Name: "poetry.lock", Ecosystem: Pip, match: base("poetry.lock"), read: readPoetryLock},
	{Name: "Pipfile", Ecosystem: Pip, match: base("Pipfile"), read: readPipfile},
	{Name: "Pipfile.lock", Ecosystem: Pip, match: base("Pipfile.lock"), read: readPipfileLock},
	{Name: "pip requirements", Ecosystem: Pip, match: isRequirementsPath, read: readRequirements},
	{Name: "pdm.lock", Ecosystem: Pip, match: base("pdm.lock"), read: readPDMLock},
	{Name: "pylock.toml", Ecosystem: Pip, match: isPylock},
	{Name: "conda environment", Ecosystem: Pip, match: base("environment.yml", "environment.yaml", "conda.yml", "conda.yaml")},
	{Name: "setup.cfg", Ecosystem: Pip, match: base("setup.cfg"), read: readSetupCfg},
	{Name: "setup.py", Ecosystem: Pip, match: base("setup.py"), read: readSetupPy},
	// rye's requirements.lock and Helm v1's share a name: the content
	// decides (readRequirementsLock).
	{Name: "requirements.lock (rye, or Helm v1)", Ecosystem: Pip, match: isRyeLock, read: readRequirementsLock},
	// Go.
	{Name: "go.mod", Ecosystem: Gomod, match: base("go.mod"), read: readGoMod},
	{Name: "go.work", Ecosystem: Gomod, match: base("go.work"), read: readGoWork},
	// npm.
	{Name: "package.json", Ecosystem: NPM, match: base("package.json"), read: readPackageJSON},
	{Name: "package-lock.json", Ecosystem: NPM, match: base("package-lock.json", "npm-shrinkwrap.json"), read: readPackageLock},
	{Name: "yarn.lock", Ecosystem: NPM, match: base("yarn.lock"), read: readYarnLock},
	{Name: "pnpm-lock.yaml", Ecosystem: NPM, match: base("pnpm-lock.yaml"), read: readPnpmLock},
	{Name: "bun lock file", Ecosystem: NPM, match: base("bun.lock", "bun.lockb")},
	// Helm.
	{Name: "Chart.yaml", Ecosystem: Helm, match: base("Chart.yaml"), read: readChart},
	{Name: "Chart.lock", Ecosystem: Helm, match: base("Chart.lock"), read: readChartLock},
	{Name: "Helm v1 requirements.yaml", Ecosystem: Helm, match: base("requirements.yaml"), read: readChart},
	// Docker.
	{Name: "Dockerfile", Ecosystem: Docker, match: isDockerfilePath, read: readDockerfile},
	{Name: "compose file", Ecosystem: Docker, match: isComposePath, read: readCompose},
	// GitHub Actions.
	{Name: "workflow", Ecosystem: Actions, match: isWorkflowPath, read: readWorkflow},
	{Name: "action.yml", Ecosystem: Actions, match: base("action.yml", "action.yaml"), read: readWorkflow},
}

// FormatOf returns the format of the file at the slash-separated,
// repository-relative path p, and false for files of no known format and
// files under directories pinbot never reads (.git, node_modules, vendor,
// testdata, virtual environments).
func FormatOf(p string) (Format, bool) {
	p = cleanPath(p)
	for _, d := range strings.Split(path.Dir(p), "/") {
		if skipDirs[d] {
			return Format{}, false
		}
	}
	for _, f := range formats {
		if f.match(p) {
			return f, true
		}
	}
	return Format{}, false
}

// IsManifest reports whether a repository-relative path names a file that
// Diff reads, so that callers working from a list of changed files know which
// ones to fetch. Files pulled in by a requirements "-r" include are read by
// Diff even when IsManifest says no.
func IsManifest(p string) bool {
	f, ok := FormatOf(p)
	return ok && f.Readable()
}

// readerFor returns the reader for a path, or nil when Diff does not read it.
func readerFor(p string) reader {
	for _, f := range formats {
		if f.match(p) {
			return f.read
		}
	}
	return nil
}

func isRequirementsPath(p string) bool {
	lower := strings.ToLower(path.Base(p))
	ext := path.Ext(lower)
	if ext != ".txt" && ext != ".in" {
		return false
	}
	if strings.Contains(lower, "requirements") || strings.HasPrefix(lower, "constraints") {
		return true
	}
	d := path.Base(path.Dir(p))
	return d == "requirements" || d == "requirements.d"
}

// isPylock matches PEP 751 lock files: pylock.toml and pylock.NAME.toml.
func isPylock(p string) bool {
	b := path.Base(p)
	return strings.HasPrefix(b, "pylock.") && strings.HasSuffix(b, ".toml")
}

// isRyeLock matches rye's requirements.lock and requirements-dev.lock.
func isRyeLock(p string) bool {
	b := path.Base(p)
	return strings.HasPrefix(b, "requirements") && strings.HasSuffix(b, ".lock")
}

func isDockerfilePath(p string) bool {
	lower := strings.ToLower(path.Base(p))
	for _, n := range []string{"dockerfile", "containerfile"} {
		if lower == n || strings.HasPrefix(lower, n+".") || strings.HasSuffix(lower, "."+n) {
			return true
		}
	}
	return false
}

// isComposePath matches the file names docker compose looks for, with the
// usual environment variants (docker-compose.prod.yml, compose.override.yaml).
func isComposePath(p string) bool {
	lower := strings.ToLower(path.Base(p))
	ext := path.Ext(lower)
	if ext != ".yml" && ext != ".yaml" {
		return false
	}
	stem := strings.TrimSuffix(lower, ext)
	for _, n := range []string{"docker-compose", "compose"} {
		if stem == n || strings.HasPrefix(stem, n+".") || strings.HasPrefix(stem, n+"-") {
			return true
		}
	}
	return false
}

func isWorkflowPath(p string) bool {
	ext := path.Ext(p)
	return path.Dir(p) == ".github/workflows" && (ext == ".yml" || ext == ".yaml")
}
