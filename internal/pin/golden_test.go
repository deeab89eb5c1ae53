package pin

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

var update = flag.Bool("update", false, "rewrite the .golden files of testdata/golden")

// TestGolden reads every realistic manifest and lock file under
// testdata/golden/<ecosystem>/<case>/ with the reader Diff would choose for
// its path inside the case folder, and compares what it declares with the
// .golden file beside it: one "section | package | value [resolved]" line
// per entry, or the error. `go test -run TestGolden -update` rewrites them.
func TestGolden(t *testing.T) {
	root := filepath.Join("testdata", "golden")
	n := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".golden") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		parts := strings.SplitN(filepath.ToSlash(rel), "/", 3)
		if len(parts) != 3 {
			return fmt.Errorf("%s: want testdata/golden/<ecosystem>/<case>/<file>", p)
		}
		name := parts[2]
		n++
		t.Run(rel, func(t *testing.T) {
			r := readerFor(name)
			if r == nil {
				t.Fatalf("no reader for %s", name)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			got := renderDeps(r(name, data))
			gp := p + ".golden"
			if *update {
				if err := os.WriteFile(gp, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(gp)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update)", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("%s (-want +got):\n%s", name, d)
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no golden inputs found")
	}
}

func renderDeps(pr manifest.Parsed, err error) string {
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	var lines []string
	for _, d := range pr.Deps {
		l := fmt.Sprintf("%s | %s | %s | %s", d.Eco, d.Section, d.Pkg, d.Value)
		if d.Resolved {
			l += " [resolved]"
		}
		lines = append(lines, l)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}
