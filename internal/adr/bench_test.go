package adr

import (
	"fmt"
	"testing"
	"testing/fstest"
)

// BenchmarkLoad reads 100 ADRs of the three forms, the size of a large ADR
// folder, as pinbot does for every pull request event.
func BenchmarkLoad(b *testing.B) {
	fsys := fstest.MapFS{}
	for i := range 100 {
		switch i % 3 {
		case 0:
			fsys[fmt.Sprintf("adr/%04d-front.md", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("---\nstatus: accepted\npins:\n  - {ecosystem: gomod, package: example.com/m%d, version: v1.%d.0, verify: [memory-verification]}\n---\n# %d. Front\n\n## Context\n\nSome text.\n", i, i, i))}
		case 1:
			fsys[fmt.Sprintf("docs/decisions/%03d-record.yaml", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("number: %d\ntitle: Record\ndecision: >\n  Keep lib%d at one version (owner/repo#%d).\n\n  The constraint is: lib%d==1.%d.0\nrationale: because\n", i, i, i, i, i))}
		default:
			fsys[fmt.Sprintf("doc/adr/%04d-nygard.md", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("# %d. Nygard\n\n## Status\n\nAccepted\n\n## Decision\n\nWe pin pkg%d==2.%d.1 for now.\n", i, i, i))}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		recs, _, err := Load(fsys, DefaultDirs)
		if err != nil || len(recs) != 100 {
			b.Fatalf("Load() = %d records, %v", len(recs), err)
		}
	}
}
