package pip

import (
	"path"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

// Name is the ecosystem's name in ADR front matter. It covers pip, uv,
// Poetry, Pipenv, PDM, Hatch and setuptools.
const Name = "pip"

// Definition registers pip in internal/pin's registry table.
var Definition = manifest.Definition{
	Name:        Name,
	Aliases:     []string{"uv", "poetry", "pypi", "python", "pipenv", "pip-compile", "pip_compile", "pdm", "hatch", "setuptools"},
	Datasources: []string{"pypi"},
	Normalize:   Normalize,
	Formats: []manifest.Format{
		{Name: "pyproject.toml", Match: manifest.Base("pyproject.toml"), Read: readPyproject},
		{Name: "uv.lock", Match: manifest.Base("uv.lock"), Read: readUVLock},
		{Name: "poetry.lock", Match: manifest.Base("poetry.lock"), Read: readPoetryLock},
		{Name: "Pipfile", Match: manifest.Base("Pipfile"), Read: readPipfile},
		{Name: "Pipfile.lock", Match: manifest.Base("Pipfile.lock"), Read: readPipfileLock},
		{Name: "pip requirements", Match: IsRequirementsPath, Read: ReadRequirements},
		{Name: "pdm.lock", Match: manifest.Base("pdm.lock"), Read: readPDMLock},
		{Name: "pylock.toml", Match: isPylock},
		{Name: "conda environment", Match: manifest.Base("environment.yml", "environment.yaml", "conda.yml", "conda.yaml")},
		{Name: "setup.cfg", Match: manifest.Base("setup.cfg"), Read: readSetupCfg},
		{Name: "setup.py", Match: manifest.Base("setup.py"), Read: readSetupPy},
		// rye's requirements.lock and Helm v1's share a name: the content
		// decides (readRequirementsLock).
		{Name: "requirements.lock (rye, or Helm v1)", Match: isRyeLock, Read: readRequirementsLock},
	},
}

// Normalize is PEP 503's name normalisation ("Foo.Bar_baz" is "foo-bar-baz").
func Normalize(name string) string {
	return pep503SepRE.ReplaceAllString(strings.ToLower(strings.TrimSpace(name)), "-")
}

// IsRequirementsPath matches pip requirements and constraints files.
func IsRequirementsPath(p string) bool {
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
