package pin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addFileSeeds seeds a fuzz target with every file content of the table
// tests and the testdata trees.
func addFileSeeds(f *testing.F) {
	f.Helper()
	for _, c := range diffCases {
		for _, m := range []map[string]string{c.base, c.head} {
			for _, content := range m {
				f.Add([]byte(content))
			}
		}
	}
	for _, c := range errCases {
		f.Add([]byte(c.content))
	}
	// Issue 36's tables.
	var trees []map[string]string
	for _, c := range sameVersionCases {
		trees = append(trees, c.base, c.head)
	}
	for _, c := range includeCases {
		trees = append(trees, c.base, c.head)
	}
	for _, c := range gradleCases {
		trees = append(trees, c.base, c.head)
	}
	for _, m := range trees {
		for _, content := range m {
			f.Add([]byte(content))
		}
	}
	for _, c := range lockSourceCases {
		f.Add([]byte(c.base))
		f.Add([]byte(c.head))
	}
	err := filepath.WalkDir("testdata", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b)
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
}

// checkReader runs the invariants every manifest reader must keep on any
// input: no panic; a file compared with itself changes nothing; a file that
// appears either fails with a *ReadError naming it or yields additions only,
// each with a package and a value.
func checkReader(t *testing.T, name string, data []byte) {
	t.Helper()
	if cs, err := DiffFiles([]FilePair{{Path: name, Base: data, Head: data}}); err != nil || cs != nil {
		t.Fatalf("identical file: changes %v, error %v", cs, err)
	}
	cs, err := DiffFiles([]FilePair{{Path: name, Head: data}})
	if err != nil {
		var re *ReadError
		var u *Unresolved
		if !(errors.As(err, &re) && re.Path == name) && !(errors.As(err, &u) && u.Manifest == name) {
			t.Fatalf("error %v is not a *ReadError or an *Unresolved for %s", err, name)
		}
		if !strings.HasPrefix(err.Error(), name+":") {
			t.Fatalf("error %q does not start with the file name", err)
		}
		return
	}
	for _, c := range cs {
		if c.Package == "" || c.Old != "" || c.New == "" || c.Manifest != name || !c.Ecosystem.Valid() {
			t.Fatalf("bad change for an added file: %+v", c)
		}
	}
	// Removing the file removes exactly what adding it added.
	rm, err := DiffFiles([]FilePair{{Path: name, Base: data}})
	if err != nil || len(rm) != len(cs) {
		t.Fatalf("removing the file: %d changes, %v; adding it gave %d", len(rm), err, len(cs))
	}
}

func FuzzPyproject(f *testing.F) {
	addFileSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, "pyproject.toml", data) })
}

func FuzzRequirements(f *testing.F) {
	addFileSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, "requirements.txt", data) })
}

func FuzzUVLock(f *testing.F) {
	addFileSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, "uv.lock", data) })
}

func FuzzPoetryLock(f *testing.F) {
	addFileSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, "poetry.lock", data) })
}

func FuzzPipfile(f *testing.F) {
	addFileSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkReader(t, "Pipfile", data)
		checkReader(t, "Pipfile.lock", data)
	})
}

func FuzzGoMod(f *testing.F) {
	addFileSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, "go.mod", data) })
}

func FuzzGoWork(f *testing.F) {
	addFileSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, "go.work", data) })
}

func FuzzPackageJSON(f *testing.F) {
	addFileSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, "package.json", data) })
}

func FuzzPackageLock(f *testing.F) {
	addFileSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, "package-lock.json", data) })
}

func FuzzChart(f *testing.F) {
	addFileSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkReader(t, "Chart.yaml", data)
		checkReader(t, "Chart.lock", data)
	})
}

func FuzzDockerfile(f *testing.F) {
	addFileSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, "Dockerfile", data) })
}

func FuzzWorkflow(f *testing.F) {
	addFileSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkReader(t, ".github/workflows/ci.yml", data)
		checkReader(t, ".github/actions/setup/action.yml", data)
	})
}

func FuzzLeaves(f *testing.F) {
	for _, c := range leavesCases {
		f.Add(string(c.eco), c.pkg, c.pin, c.value)
	}
	f.Fuzz(func(t *testing.T, eco, pkg, pinned, value string) {
		p := Pin{Ecosystem: Ecosystem(eco), Package: pkg, Version: pinned}
		if strings.TrimSpace(value) == "" && !p.Leaves(value) {
			t.Fatal("an absent value holds the pin")
		}
		_ = p.Leaves(value)
		_ = p.Moves(Change{Ecosystem: Ecosystem(eco), Package: pkg, New: value})
	})
}

func FuzzParseDependabotCommit(f *testing.F) {
	for _, c := range dependabotCases {
		f.Add(c.msg)
	}
	f.Add(readTestdata(f, "bot/dependabot-grouped.txt"))
	f.Fuzz(func(t *testing.T, msg string) {
		us, err := ParseDependabotCommit(msg)
		if err != nil {
			return
		}
		for _, u := range us {
			if strings.TrimSpace(u.Package) == "" || u.Source != SourceDependabotCommit {
				t.Fatalf("bad update %+v", u)
			}
		}
	})
}

func FuzzParseRenovateBody(f *testing.F) {
	f.Add(readTestdata(f, "bot/renovate-body.md"))
	f.Add(readTestdata(f, "bot/dependabot-grouped.txt"))
	f.Fuzz(func(t *testing.T, body string) {
		for _, u := range ParseRenovateBody(body) {
			if u.Package == "" || u.To == "" && u.From == "" || u.Source != SourceRenovateBody {
				t.Fatalf("bad update %+v", u)
			}
		}
	})
}

func FuzzParseTitle(f *testing.F) {
	for _, c := range titleCases {
		f.Add(c.title)
	}
	f.Fuzz(func(t *testing.T, title string) {
		for _, u := range ParseTitle(title) {
			if u.Package == "" || strings.ContainsAny(u.Package, " \t\n") || u.Source != SourceTitle {
				t.Fatalf("bad update %+v", u)
			}
		}
	})
}

func FuzzYarnLock(f *testing.F) {
	addFileSeeds(f)
	f.Add([]byte("# yarn lockfile v1\n\n\"left-pad@^1.3.0\", left-pad@^1.4.0:\n  version \"1.4.0\"\n"))
	f.Add([]byte("__metadata:\n  version: 8\n\n\"left-pad@npm:^1.3.0\":\n  version: 1.3.0\n  resolution: \"left-pad@npm:1.3.0\"\n"))
	for _, c := range lockSourceCases {
		f.Add([]byte(c.base))
		f.Add([]byte(c.head))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, "yarn.lock", data) })
}

func FuzzPnpmLock(f *testing.F) {
	addFileSeeds(f)
	f.Add([]byte("lockfileVersion: '9.0'\npackages:\n  left-pad@1.3.0:\n    resolution: {integrity: sha512-x}\n  /@types/node@22.1.0(peer@1.0.0):\n    resolution: {}\n"))
	for _, c := range lockSourceCases {
		f.Add([]byte(c.base))
		f.Add([]byte(c.head))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, "pnpm-lock.yaml", data) })
}
