// Command score measures pinbot's pin extraction on the decision-record
// corpus of test/records (issue 35) and on the shared corpus of
// /work/shared/corpus/real-adrs, as that corpus's score.sh does.
//
//	go run ./test/records/score --pinbot PATH [--labels test/records/testdata/labels.json]
//	    [--texts DIR] [--split tune|test|all]
//	go run ./test/records/score --pinbot PATH --shared DIR
//
// For every record it builds a throw-away git repository holding the record
// at its path (for this corpus also the repository's manifests and its
// .adr-dir/.log4brains.yml, as test/records/materialize.sh wrote them under
// --texts/<id>/), commits, and runs `PINBOT pins --repo DIR -o json` twice:
// pass 1 with default discovery, pass 2 with .github/pinbot.yml
// `adrPaths: [<adr_dir>]`. Only enforced pins count as found.
//
// The test half stays untuned: its per-record lines are not printed unless
// --show-test-records is given.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Record is one labelled decision record (labels.json or the shared
// corpus's expected.json).
type Record struct {
	ID         string  `json:"id"`
	Repo       string  `json:"repo"`
	Path       string  `json:"path"`
	Commit     string  `json:"commit"`
	ADRDir     string  `json:"adr_dir"`
	ADRDirFile *string `json:"adr_dir_file"`
	Status     string  `json:"status"`
	Expected   []Pin   `json:"expected_pins"`
	Optional   []Pin   `json:"optional_pins"`
	Kind       string  `json:"kind"`
	Split      string  `json:"split"`
	Lang       string  `json:"lang"`
	File       string  `json:"file"` // shared corpus only: the text, relative to its folder
}

type pinsOutput struct {
	ADRs []struct {
		Path string `json:"path"`
	} `json:"adrs"`
	Pins     []FoundPin `json:"pins"`
	Warnings []Warning  `json:"warnings"`
}

func main() {
	pinbot := flag.String("pinbot", "", "the pinbot binary to score (required)")
	labels := flag.String("labels", "test/records/testdata/labels.json", "the labels of this corpus")
	texts := flag.String("texts", envOr("RECORDS_DIR", "/work/records-cache"), "the materialized records (test/records/materialize.sh), <texts>/<id>/<path>")
	split := flag.String("split", "all", "which half of this corpus: tune, test or all")
	shared := flag.String("shared", "", "score the shared corpus in this folder (its expected.json and files/) instead")
	showTest := flag.Bool("show-test-records", false, "print the test half's per-record lines too (keep it untuned: do not)")
	verbose := flag.Bool("v", false, "print every pin pinbot listed for a printed record")
	keep := flag.Bool("keep", false, "keep the temp repositories")
	flag.Parse()
	if *pinbot == "" {
		fail("--pinbot is required")
	}
	bin, err := filepath.Abs(*pinbot)
	if err != nil {
		fail(err.Error())
	}
	if _, err := os.Stat(bin); err != nil {
		fail(fmt.Sprintf("pinbot binary: %v", err))
	}

	var recs []Record
	corpus := "records"
	if *shared != "" {
		corpus = "shared"
		recs = load(filepath.Join(*shared, "expected.json"))
		for i := range recs {
			recs[i].Split = "shared"
		}
	} else {
		all := load(*labels)
		for _, r := range all {
			if r.Split != "tune" && r.Split != "test" {
				fail(fmt.Sprintf("%s: split %q is neither tune nor test", r.ID, r.Split))
			}
			if *split == "all" || r.Split == *split {
				recs = append(recs, r)
			}
		}
		if *split != "all" && *split != "tune" && *split != "test" {
			fail("--split is tune, test or all")
		}
	}
	if len(recs) == 0 {
		fail("no records selected")
	}

	// Every text must be there: a missing one is never scored as a miss.
	var missing []string
	for _, r := range recs {
		if _, err := os.Stat(textPath(r, *shared, *texts)); err != nil {
			missing = append(missing, r.ID+" ("+r.Repo+" "+r.Path+")")
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "score: %d of %d records have no text:\n  %s\n", len(missing), len(recs), strings.Join(missing, "\n  "))
		if *shared == "" {
			fmt.Fprintf(os.Stderr, "materialize them first: RECORDS_DIR=%s test/records/materialize.sh (needs the repositories' snapshots under /work/.mirror)\n", *texts)
		}
		os.Exit(2)
	}

	splits := []string{}
	seen := map[string]bool{}
	for _, r := range recs {
		if !seen[r.Split] {
			seen[r.Split] = true
			splits = append(splits, r.Split)
		}
	}
	sort.Strings(splits)

	type key struct {
		split string
		pass  int
	}
	tot := map[key]*Totals{}
	hidden := 0
	for pass := 1; pass <= 2; pass++ {
		if pass == 1 {
			fmt.Println("== pass 1: default discovery")
		} else {
			fmt.Println("== pass 2: .github/pinbot.yml adrPaths = the record's folder")
		}
		for _, r := range recs {
			out, rc, errText := run(bin, r, *shared, *texts, pass == 2, *keep)
			read := false
			var pins []FoundPin
			if out != nil {
				pins = out.Pins
				for _, a := range out.ADRs {
					if a.Path == r.Path {
						read = true
					}
				}
			}
			res := Score(r.Path, pins, r.Expected, r.Optional)
			if out != nil {
				for _, x := range res.FN {
					if FailsClosed(r.Path, x, out.Warnings) {
						res.Closed++
					}
				}
			}
			k := key{r.Split, pass}
			if tot[k] == nil {
				tot[k] = &Totals{}
			}
			tot[k].Add(res, read)
			if out != nil && len(res.FN) == 0 && Unreadable(r.Path, out.Warnings) {
				tot[k].NeedlessClosed++
			}
			if r.Split == "test" && !*showTest {
				hidden++
				continue
			}
			line := fmt.Sprintf("%-5s %-40s expected=%-2d TP=%-2d FP=%-2d FN=%-2d listed-not-enforced=%-2d read=%s",
				r.Split, r.ID, res.Expected, res.TP, len(res.FP), len(res.FN), res.Listed, yesNo(read))
			if out == nil {
				line += fmt.Sprintf(" ERROR rc=%d %s", rc, errText)
			}
			fmt.Println(line)
			if out != nil {
				for _, w := range out.Warnings {
					if w.Path == r.Path && w.Unreadable {
						fmt.Printf("      fails closed at line %d (%s): %s\n", w.Line, strings.Join(w.Ecosystems, ","), w.Message)
					}
				}
			}
			for _, x := range res.FN {
				how := "silent"
				if out != nil && FailsClosed(r.Path, x, out.Warnings) {
					how = "fails closed"
				}
				fmt.Printf("      missed %s %s %s (%s)\n", x.Ecosystem, x.Package, x.Version, how)
			}
			for _, p := range res.FP {
				st := ""
				if p.ADR != nil {
					st = p.ADR.Status
				}
				fmt.Printf("      FALSE  %s %s %s (status %s)\n", p.Ecosystem, p.Package, p.Version, st)
			}
			if *verbose {
				for _, p := range pins {
					fmt.Printf("      listed %s %s %s enforced=%v\n", p.Ecosystem, p.Package, p.Version, p.Enforced)
				}
			}
		}
	}
	if hidden > 0 {
		fmt.Printf("(%d per-record lines of the test half not shown: it stays untuned)\n", hidden/2)
	}
	fmt.Printf("== %s corpus, %s\n", corpus, time.Now().UTC().Format("2006-01-02"))
	for _, s := range splits {
		for pass := 1; pass <= 2; pass++ {
			t := tot[key{s, pass}]
			name := "pass 1 (default discovery):"
			if pass == 2 {
				name = "pass 2 (folder given):"
			}
			fmt.Printf("%-6s %-27s recall %s (%d/%d), %d false pins, %d of %d records read; %d false package@versions; of %d misses %d fail closed, %d silent; %d records fail closed with nothing missed\n",
				s, name, Pct(t.TP, t.Exp), t.TP, t.Exp, t.FP, t.Read, t.Records, t.FalseNames, t.Exp-t.TP, t.Closed, t.Exp-t.TP-t.Closed, t.NeedlessClosed)
		}
	}
}

func textPath(r Record, shared, texts string) string {
	if shared != "" {
		return filepath.Join(shared, r.File)
	}
	return filepath.Join(texts, r.ID, filepath.FromSlash(r.Path))
}

// run builds the record's repository and runs pinbot on it.
func run(bin string, r Record, shared, texts string, folderGiven, keep bool) (*pinsOutput, int, string) {
	d, err := os.MkdirTemp("", "records-")
	if err != nil {
		fail(err.Error())
	}
	if !keep {
		defer os.RemoveAll(d)
	}
	if shared != "" {
		must(copyFile(filepath.Join(shared, r.File), filepath.Join(d, filepath.FromSlash(r.Path))))
		if r.ADRDirFile != nil && *r.ADRDirFile != "" {
			must(os.WriteFile(filepath.Join(d, ".adr-dir"), []byte(*r.ADRDirFile+"\n"), 0o644))
		}
	} else {
		must(copyTree(filepath.Join(texts, r.ID), d))
	}
	if folderGiven {
		must(os.MkdirAll(filepath.Join(d, ".github"), 0o755))
		q, _ := json.Marshal(r.ADRDir)
		must(os.WriteFile(filepath.Join(d, ".github", "pinbot.yml"), []byte("adrPaths: ["+string(q)+"]\n"), 0o644))
	}
	git(d, "init", "-q")
	git(d, "add", "-A")
	git(d, "-c", "user.email=score@example.invalid", "-c", "user.name=score", "-c", "commit.gpgsign=false", "commit", "-qm", "corpus")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "pins", "--repo", d, "-o", "json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	rc := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		rc = ee.ExitCode()
	} else if err != nil {
		return nil, -1, err.Error()
	}
	var out pinsOutput
	if jerr := json.Unmarshal(stdout.Bytes(), &out); jerr != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(stdout.String())
		}
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return nil, rc, msg
	}
	return &out, rc, ""
}

func git(d string, args ...string) {
	cmd := exec.Command("git", append([]string{"-C", d}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		fail(fmt.Sprintf("git %s in %s: %v: %s", strings.Join(args, " "), d, err, out))
	}
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if e.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !e.Type().IsRegular() {
			return nil
		}
		return copyFile(p, filepath.Join(dst, rel))
	})
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

func load(p string) []Record {
	b, err := os.ReadFile(p)
	if err != nil {
		fail(err.Error())
	}
	var recs []Record
	if err := json.Unmarshal(b, &recs); err != nil {
		fail(fmt.Sprintf("%s: %v", p, err))
	}
	return recs
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}

func must(err error) {
	if err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "score:", msg)
	os.Exit(2)
}
