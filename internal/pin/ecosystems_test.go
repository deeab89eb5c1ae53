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
		want: []Change{{Ecosystem: Cargo, Package: "sysinfo", Manifest: "Cargo.toml", Old: "0.25.2", New: "0.26.0"}},
	},
	{
		name: "cargo lock-only bump",
		base: map[string]string{"Cargo.lock": "version = 3\n\n[[package]]\nname = \"sysinfo\"\nversion = \"0.25.2\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n"},
		head: map[string]string{"Cargo.lock": "version = 3\n\n[[package]]\nname = \"sysinfo\"\nversion = \"0.25.3\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n"},
		want: []Change{{Ecosystem: Cargo, Package: "sysinfo", Manifest: "Cargo.lock", Old: "0.25.2", New: "0.25.3", Resolved: true}},
	},
}

// moreErrCases are malformed files of the added ecosystems: each must be an
// error naming the file and line.
var moreErrCases = []errCase{
	{"Cargo.toml", "[dependencies]\nsysinfo = \"=0.25.2\n", "Cargo.toml:2: parsing TOML"},
	{"Cargo.toml", "[package]\nname = \"x\"\n\n[dependencies]\nsysinfo = 25\n", "Cargo.toml:5: dependencies.sysinfo: want a version string or a table"},
	{"crates/a/Cargo.toml", "[dependencies]\nsysinfo = { features = [\"x\"] }\n", "crates/a/Cargo.toml:2: dependencies.sysinfo: table has no version"},
	{"Cargo.lock", "version = 3\n\n[[package]]\nname = \"a\"\nversion = \"1.0.0\"\n\n[[package]]\nname = \"sysinfo\"\n", "Cargo.lock:7: package entry 2 needs a name and a version"},
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
	{Cargo, "sysinfo", "0.25.2", "^0.25.2", false},
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
}

func TestMoreEcosystemsDiff(t *testing.T) {
	for _, tt := range moreDiffCases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Diff(mapFS(t, tt.base), mapFS(t, tt.head))
			if err != nil {
				t.Fatalf("Diff: %v", err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Diff (-want +got):\n%s", d)
			}
			var files []FilePair
			for p := range union(tt.base, tt.head) {
				files = append(files, FilePair{Path: p, Base: bytesOrNil(tt.base, p), Head: bytesOrNil(tt.head, p)})
			}
			got, err = DiffFiles(files)
			if err != nil {
				t.Fatalf("DiffFiles: %v", err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("DiffFiles (-want +got):\n%s", d)
			}
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

func FuzzCargo(f *testing.F) { moreFuzz(f, "Cargo.toml", "Cargo.lock") }

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
		"dependabot/cargo/sysinfo-0.25.3":              Cargo,
		"dependabot/cargo/crates/agent/sysinfo-0.25.3": Cargo,
	} {
		if got := EcosystemFromBranch(branch); got != want {
			t.Errorf("EcosystemFromBranch(%q) = %q, want %q", branch, got, want)
		}
	}
}
