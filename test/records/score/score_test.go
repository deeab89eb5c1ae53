package main

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
)

func TestPkgEq(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"react", "react", true},
		{"React", "react", true},
		{"github.com/golangci/golangci-lint", "golangci-lint", true},
		{"golangci-lint", "github.com/golangci/golangci-lint", true},
		{"github.com/jackc/pgx/v5", "pgx", false},
		{"@swc/helpers", "helpers", true},
		{"pgx", "pgxpool", false},
		{"lint", "golangci-lint", false},
	} {
		if got := PkgEq(c.a, c.b); got != c.want {
			t.Errorf("PkgEq(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestVerEq(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"1.2.3", "1.2.3", true},
		{"v1.2.3", "1.2.3", true},
		{"==1.40.1", "1.40.1", true},
		{"=v2.0.0", "V2.0.0", true},
		{"1.2.3", "1.2.4", false},
		{"1.2", "1.2.0", false},
	} {
		if got := VerEq(c.a, c.b); got != c.want {
			t.Errorf("VerEq(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestMatchEcosystems(t *testing.T) {
	for _, c := range []struct {
		found, exp string
		want       bool
	}{
		{"gomod", "go", true},
		{"pnpm", "npm", true},
		{"uv", "pip", true},
		{"rubygems", "bundler", true},
		{"actions", "github-actions", true},
		{"", "npm", true},
		{"npm", "", true},
		{"npm", "composer", false},
	} {
		f := FoundPin{Ecosystem: c.found, Package: "guzzlehttp/guzzle", Version: "7.8.1"}
		e := Pin{Ecosystem: c.exp, Package: "guzzlehttp/guzzle", Version: "7.8.1"}
		if got := Match(f, e); got != c.want {
			t.Errorf("Match(eco %q vs %q) = %v, want %v", c.found, c.exp, got, c.want)
		}
	}
}

func adr(path string) *ADRRef { return &ADRRef{Path: path} }

func TestScore(t *testing.T) {
	const path = "docs/adr/0001-x.md"
	exp := []Pin{{"npm", "react", "19.1.0"}, {"npm", "next", "15.1.12"}}
	opt := []Pin{{"npm", "react", "19.2.0"}}
	pins := []FoundPin{
		{Ecosystem: "npm", Package: "react", Version: "19.1.0", Enforced: true, ADR: adr(path)},
		{Ecosystem: "npm", Package: "react", Version: "19.1.0", Enforced: true, ADR: adr(path)},                  // a duplicate is a false pin, as in score.sh
		{Ecosystem: "npm", Package: "react", Version: "19.2.0", Enforced: true, ADR: adr(path)},                  // optional: neutral
		{Ecosystem: "npm", Package: "next", Version: "15.1.12", Enforced: false, ADR: adr(path)},                 // listed, not enforced: not found
		{Ecosystem: "npm", Package: "vue", Version: "3.0.0", Enforced: true, ADR: adr("docs/adr/0002-other.md")}, // another record's
		{Ecosystem: "pip", Package: "pydantic", Version: "2.7", Enforced: true},                                  // no adr path: this record's
	}
	r := Score(path, pins, exp, opt)
	if r.TP != 1 || len(r.FP) != 2 || len(r.FN) != 1 || r.Listed != 1 || r.Expected != 2 {
		t.Fatalf("Score = TP %d FP %d FN %d listed %d expected %d; want 1 2 1 1 2", r.TP, len(r.FP), len(r.FN), r.Listed, r.Expected)
	}
	if r.FN[0].Package != "next" {
		t.Errorf("missed %v, want next", r.FN[0])
	}
	var tot Totals
	tot.Add(r, true)
	tot.Add(Score(path, nil, nil, nil), false)
	if tot.TP != 1 || tot.FP != 2 || tot.Exp != 2 || tot.Read != 1 || tot.Records != 2 {
		t.Errorf("Totals = %+v", tot)
	}
	if got := Pct(tot.TP, tot.Exp); got != "50%" {
		t.Errorf("Pct = %q, want 50%%", got)
	}
	if got := Pct(0, 0); got != "n/a" {
		t.Errorf("Pct(0,0) = %q", got)
	}
}

func TestFailsClosed(t *testing.T) {
	const path = "docs/adr/0001-x.md"
	miss := Pin{"npm", "next", "15.1.12"}
	for _, c := range []struct {
		name string
		ws   []Warning
		want bool
	}{
		{"no warning: silent", nil, false},
		{"unreadable for any ecosystem", []Warning{{Path: path, Unreadable: true}}, true},
		{"unreadable for npm (an alias)", []Warning{{Path: path, Unreadable: true, Ecosystems: []string{"pnpm"}}}, true},
		{"unreadable for pip only", []Warning{{Path: path, Unreadable: true, Ecosystems: []string{"pip"}}}, false},
		{"another record unreadable", []Warning{{Path: "docs/adr/0002-y.md", Unreadable: true}}, false},
		{"a warning that does not fail closed", []Warning{{Path: path, Line: 3}}, false},
		{"doubtful: the status is unknown", []Warning{{Path: path, Doubtful: []FoundPin{{Ecosystem: "npm", Package: "next", Version: "v15.1.12"}}}}, true},
		{"doubtful, another pin", []Warning{{Path: path, Doubtful: []FoundPin{{Ecosystem: "npm", Package: "react", Version: "15.1.12"}}}}, false},
	} {
		if got := FailsClosed(path, miss, c.ws); got != c.want {
			t.Errorf("%s: FailsClosed = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestFalseNames(t *testing.T) {
	// One line enforced by name in three ecosystems, and a second false pin.
	r := Result{FP: []FoundPin{
		{Ecosystem: "npm", Package: "MSRV", Version: "1.97.0"}, {Ecosystem: "pip", Package: "msrv", Version: "v1.97.0"},
		{Ecosystem: "cargo", Package: "MSRV", Version: "1.97.0"}, {Ecosystem: "npm", Package: "vue", Version: "3.0.0"},
	}}
	if got := r.FalseNames(); got != 2 {
		t.Errorf("FalseNames = %d, want 2", got)
	}
	var tot Totals
	tot.Add(r, true)
	if tot.FP != 4 || tot.FalseNames != 2 {
		t.Errorf("Totals = %+v, want FP 4 and FalseNames 2", tot)
	}
}

func TestUnreadable(t *testing.T) {
	const path = "docs/adr/0001-x.md"
	if Unreadable(path, []Warning{{Path: path, Line: 3}, {Path: "docs/adr/0002-y.md", Unreadable: true}}) {
		t.Error("a plain warning and another record's unreadable one made this record unreadable")
	}
	if !Unreadable(path, []Warning{{Path: path, Line: 9, Unreadable: true, Ecosystems: []string{"npm"}}}) {
		t.Error("the record's unreadable warning was not seen")
	}
}

// A pin enforced by name in every ecosystem is listed by `pins -o json`
// once per ecosystem: it is one pin, found, neutral or false once.
func TestScoreByName(t *testing.T) {
	const path = "docs/adr/0006-pnpm.md"
	rows := func(pkg, ver string, line int) []FoundPin {
		var out []FoundPin
		for _, e := range pin.Ecosystems {
			out = append(out, FoundPin{Ecosystem: string(e), Package: pkg, Version: ver, Enforced: true, ADR: &ADRRef{Path: path, Line: line}})
		}
		return out
	}
	for _, tt := range []struct {
		name        string
		exp, opt    []Pin
		tp, fp, fn  int
		fpEcosystem string
	}{
		{"expected", []Pin{{"npm", "pnpm", "10.33.2"}}, nil, 1, 0, 0, ""},
		{"optional", nil, []Pin{{"npm", "pnpm", "10.33.2"}}, 0, 0, 0, ""},
		{"false", nil, nil, 0, 1, 0, "any"},
		{"false beside a miss", []Pin{{"npm", "yarn", "4.1.0"}}, nil, 0, 1, 1, "any"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Score(path, rows("pnpm", "10.33.2", 35), tt.exp, tt.opt)
			if r.TP != tt.tp || len(r.FP) != tt.fp || len(r.FN) != tt.fn {
				t.Fatalf("Score = TP %d FP %d FN %d; want %d %d %d", r.TP, len(r.FP), len(r.FN), tt.tp, tt.fp, tt.fn)
			}
			if tt.fp > 0 && r.FP[0].Ecosystem != tt.fpEcosystem {
				t.Errorf("false pin %+v, want ecosystem %q", r.FP[0], tt.fpEcosystem)
			}
		})
	}
	// Two ecosystems' rows at one line are two pins, not one by name.
	two := rows("pnpm", "10.33.2", 35)[:2]
	if r := Score(path, two, nil, nil); len(r.FP) != 2 {
		t.Errorf("two rows: %d false pins, want 2", len(r.FP))
	}
}

// TestScoreRepeatedPin (ADR 0412): the same expected pin read from two
// records of one labelled file (a document's decision summary and its ADR
// section) is found once, not found and then false; a repeat of a pin
// the label does not expect is still false.
func TestScoreRepeatedPin(t *testing.T) {
	const path = "docs/architecture.md"
	pin := func(pkg, ver string, line int) FoundPin {
		return FoundPin{Ecosystem: "npm", Package: pkg, Version: ver, Enforced: true, ADR: &ADRRef{Path: path, Line: line}}
	}
	two := []FoundPin{pin("prisma", "6.17.0", 9), pin("prisma", "6.17.0", 40)}
	if r := Score(path, two, []Pin{{"npm", "prisma", "6.17.0"}}, nil); r.TP != 1 || len(r.FP) != 0 || len(r.FN) != 0 {
		t.Errorf("a repeat of an expected pin: TP %d FP %d FN %d, want 1 0 0", r.TP, len(r.FP), len(r.FN))
	}
	if r := Score(path, two, nil, nil); len(r.FP) != 2 {
		t.Errorf("a repeat of a false pin: %d false pins, want 2", len(r.FP))
	}
}
