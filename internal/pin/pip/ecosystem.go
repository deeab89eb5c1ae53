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
	Aliases:     []string{"poetry", "pypi", "python", "pipenv", "pip-compile", "pip_compile", "pdm", "hatch", "setuptools"},
	Datasources: []string{"pypi"},
	Normalize:   Normalize,
	Compare:     Compare,
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
	Inputs:          Inputs,
	Advisory:        "pip",
	Dependabot:      []string{"pip", "uv"},
	RenovateAllowed: func(v string) string { return "==" + v },
	Words:           `(?i)\bpip\b|\bpypi\b|\bpyproject\.toml\b|\brequirements[-\w]*\.txt\b|\buv\.lock\b|\bpoetry\b|\bpipfile\b`,
	Lacks: map[string]string{
		"RenovateTopics": "Renovate titles its updates \"dependency\", which names no ecosystem",
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

// Inputs are the files whose change can alter the versions pip, uv,
// Poetry, Pipenv and PDM install, from their documentation.
var Inputs = []manifest.Input{
	{Files: "pyproject.toml at any depth", Role: "project dependencies, dependency groups, tool.uv/tool.poetry/tool.pdm tables",
		Example: "services/api/pyproject.toml", Match: manifest.Base("pyproject.toml"), Evaluated: true,
		Doc: "https://packaging.python.org/en/latest/specifications/pyproject-toml/"},
	{Files: "*requirements*.txt/.in, constraints*.txt, requirements/*.txt, and the files of any name they include (-r, -c)",
		Role: "requirements and constraints", Example: "requirements/base.txt", Match: IsRequirementsPath, Evaluated: true,
		Doc: "https://pip.pypa.io/en/stable/reference/requirements-file-format/"},
	{Files: "uv.lock, poetry.lock, Pipfile.lock, pdm.lock", Role: "a lock file", Example: "uv.lock",
		Match: manifest.Base("uv.lock", "poetry.lock", "Pipfile.lock", "pdm.lock"), Evaluated: true, Doc: "https://docs.astral.sh/uv/concepts/projects/layout/#the-lockfile"},
	{Files: "requirements.lock, requirements-dev.lock", Role: "rye's lock file", Example: "requirements-dev.lock",
		Match: isRyeLock, Evaluated: true, Doc: "https://rye.astral.sh/guide/sync/"},
	{Files: "Pipfile", Role: "Pipenv's requirements", Example: "Pipfile", Match: manifest.Base("Pipfile"), Evaluated: true,
		Doc: "https://pipenv.pypa.io/en/latest/pipfile.html"},
	{Files: "setup.cfg, setup.py", Role: "setuptools' install_requires and extras", Example: "setup.cfg",
		Match: manifest.Base("setup.cfg", "setup.py"), Evaluated: true, Doc: "https://setuptools.pypa.io/en/latest/userguide/dependency_management.html"},
	{Files: "pylock.toml, pylock.NAME.toml", Role: "a PEP 751 lock file", Example: "pylock.toml", Match: isPylock,
		Doc: "https://packaging.python.org/en/latest/specifications/pylock-toml/"},
	{Files: "environment.yml, environment.yaml, conda.yml, conda.yaml", Role: "a conda environment", Example: "environment.yml",
		Match: manifest.Base("environment.yml", "environment.yaml", "conda.yml", "conda.yaml"),
		Doc:   "https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-environments.html#create-env-file-manually"},
	{Files: "uv.toml", Role: "uv settings: constraint-dependencies, override-dependencies, indexes", Example: "uv.toml",
		Match: manifest.Base("uv.toml"), Doc: "https://docs.astral.sh/uv/reference/settings/"},
	{Files: "pip.conf, pip.ini", Role: "pip settings: indexes, constraint files", Example: "pip.conf",
		Match: manifest.Base("pip.conf", "pip.ini"), Doc: "https://pip.pypa.io/en/stable/topics/configuration/"},
}

// Compare orders two versions by PEP 440 (pip's order, and GitHub's pip
// advisories'): 1.0.dev1 < 1.0a1 < 1.0rc1 < 1.0 < 1.0.post1, epochs first.
func Compare(a, b string) (int, error) {
	va, err := ParsePEP440(a)
	if err != nil {
		return 0, err
	}
	vb, err := ParsePEP440(b)
	if err != nil {
		return 0, err
	}
	return va.Compare(vb), nil
}
