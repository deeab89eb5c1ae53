package adr

import (
	"encoding/json"
	"os"
	"path"
	"slices"
	"testing"
)

// TestCorpusScore scores the parser on our own corpus of decision records
// (testdata/corpus, labels in labels.json): records in the styles of
// adr-tools, MADR 2/3/4, log4brains, Nygard and YAML records, with the pins
// each decides and traps that must not be pins (issue 22, item 6). It
// prints recall and precision and fails below 95 % recall or on any false
// pin. Run: go test -run TestCorpusScore -v ./internal/adr/
func TestCorpusScore(t *testing.T) {
	data, err := os.ReadFile("testdata/corpus/labels.json")
	if err != nil {
		t.Fatal(err)
	}
	var labels []struct {
		File     string   `json:"file"`
		Expected []string `json:"expected"`
		Note     string   `json:"note"`
	}
	if err := json.Unmarshal(data, &labels); err != nil {
		t.Fatal(err)
	}
	if len(labels) < 40 {
		t.Fatalf("%d records, want at least 40", len(labels))
	}
	tp, fp, exp := 0, 0, 0
	for _, l := range labels {
		content, err := os.ReadFile(path.Join("testdata/corpus", l.File))
		if err != nil {
			t.Fatal(err)
		}
		rec, _ := Parse(path.Join("docs/adr", l.File), content)
		got := pinsOf(rec)
		exp += len(l.Expected)
		for _, g := range got {
			if slices.Contains(l.Expected, g) {
				tp++
			} else {
				fp++
				t.Errorf("%s: false pin %q", l.File, g)
			}
		}
		for _, e := range l.Expected {
			if !slices.Contains(got, e) {
				t.Logf("%s: missed %q (rejected: %+v)", l.File, e, rec.Rejected)
			}
		}
	}
	recall := 100 * float64(tp) / float64(exp)
	precision := 100.0
	if tp+fp > 0 {
		precision = 100 * float64(tp) / float64(tp+fp)
	}
	t.Logf("own corpus: %d records; recall %.0f%% (%d/%d) precision %.0f%% (%d/%d); %d false pins", len(labels), recall, tp, exp, precision, tp, tp+fp, fp)
	if recall < 95 {
		t.Errorf("recall %.0f%% below 95%%", recall)
	}
}
