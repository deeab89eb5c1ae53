package adr

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// issue35Repo is a repository of our own whose manifests pin exactly what
// the records below decide, plus ranges the records must not turn into pins.
var issue35Repo = fstest.MapFS{
	"package.json":          {Data: []byte(`{"packageManager": "pnpm@9.1.0", "devDependencies": {"vite": "6.1.4", "eslint": "9.3.0"}}`)},
	"apps/api/package.json": {Data: []byte(`{"dependencies": {"hono": "4.7.2", "kysely": "0.27.6", "kysely-codegen": "0.18.1", "left-pad": "1.3.0", "lit": "^3.2.0"}}`)},
	"Dockerfile":            {Data: []byte("FROM node:22.14.0-alpine\n")},
}

// TestRecordClasses35: the shapes of issue 35's records, in our own words
// and languages: decision tables whose header names a package and a
// version column in any language, records without a decision heading,
// decision headings in other languages, paired "A / B" cells, inline
// examples, and records filed in a superseded/ folder.
func TestRecordClasses35(t *testing.T) {
	for _, tt := range []struct {
		name, path, doc string
		want            []string
	}{
		{"French table, no decision heading", "docs/adr/0003-versions.md",
			"# ADR 0003 — Versions choisies\n\nStatut : accepté\n\n## Versions figées\n\n| Paquet | Version | Remarque |\n| --- | --- | --- |\n| hono | 4.7.2 | |\n| Kysely / kysely-codegen | 0.27.6 / 0.18.1 | |\n| lit | ^3.2.0 | plage |\n| Node | 22 LTS | |\n\n## Conséquences\n\n| Paquet | Version |\n| --- | --- |\n| eslint | 9.3.0 |\n",
			[]string{"npm hono 4.7.2", "npm kysely 0.27.6", "npm kysely-codegen 0.18.1"}},
		{"German table header", "docs/adr/0004-x.md",
			"# 4. Werkzeuge\n\nStatus: akzeptiert\n\n## Entscheidung\n\n| Paket | Version |\n|---|---|\n| vite | 6.1.4 |\n",
			[]string{"npm vite 6.1.4"}},
		{"Japanese table header", "docs/adr/0005-x.md",
			"# 5. ツール\n\nステータス: 採用\n\n## 決定\n\n| パッケージ | バージョン |\n|---|---|\n| `eslint` | **9.3.0** |\n",
			[]string{"npm eslint 9.3.0"}},
		{"Korean table, no decision heading", "docs/adr/0006-x.md",
			"# ADR-0006 · 버전 고정\n\n상태: 채택(Accepted)\n\n## 1. 문제\n\n| 패키지 | 버전 |\n|---|---|\n| vite | 6.0.0 |\n\n## 2. 정확 버전표\n\n| 패키지 | 정확 버전 |\n|---|---|\n| `hono` | **4.7.2** |\n",
			[]string{"npm hono 4.7.2"}},
		{"Indonesian decision heading, image label", "docs/decisions/0007-x.md",
			"# 0007 – Image\n\nStatus: Disetujui\n\n## Konteks\n\nDulu node:20.1.0-alpine.\n\n## Keputusan\n\n- Image dasar: **`node:22.14.0-alpine`**.\n",
			[]string{"docker node 22.14.0-alpine"}},
		{"French decision heading, bold version", "docs/adr/0008-x.md",
			"# ADR 0008 — Serveur\n\nStatut : accepté\n\n## Options\n\n1. **hono** 4.7.2\n\n## Décision\n\n`hono` **4.7.2**, dans `apps/api` uniquement.\n",
			[]string{"npm hono 4.7.2"}},
		{"version inside an inline example is not decided", "docs/upgrades/ADR-009-vite.md",
			"# ADR-009: Move to Vite 6\n\n**Status:** Accepted\n\n## Decision\n\nWe move to Vite 6. The checker reported drift (e.g., `vite@6.1.4` vs `6.1.5`); we fix drift as it comes.\n",
			nil},
		{"a heading naming the dependencies added is a decision part beside another decision", "docs/adr/0012-x.md",
			"# ADR 0012 — Phase 3\n\nStatut : accepté\n\n## Dépendances ajoutées\n\n| Dépendance | Version | Où |\n| --- | --- | --- |\n| hono | 4.7.2 | apps/api |\n\n## Décision de sécurité\n\nRien à épingler.\n",
			[]string{"npm hono 4.7.2"}},
		{"multi-word and .js names only when a manifest pins them exactly", "docs/adr/0013-x.md",
			"# 13. Stack\n\nStatus: Accepted\n\n## Decision\n\n| Dependency | Version |\n|---|---|\n| Kysely Codegen | 0.18.1 |\n| Left Pad | 1.3.1 |\n| Web Server | 2.4.1 |\n| Vite.js | 6.1.4 |\n",
			[]string{"npm vite 6.1.4", "npm kysely-codegen 0.18.1"}},
		{"a version table without a package column: leading names confirmed by an exact manifest pin", "docs/adr/0014-x.md",
			"# 14. Stack and versions\n\nStatus: accepted\n\n## Decision\n\n| Layer | Choice | Version |\n|---|---|---|\n| Build | Vite.js with the React plugin, defaults | 6.1.4 |\n| API | Hono on Node | 4.7.3 |\n| Lint | ESLint flat config | 9.x |\n",
			[]string{"npm vite 6.1.4"}},
		{"without a decision heading, status, history and references are not decided", "docs/adr/0015-x.md",
			"# 15. Server\n\n## Status\n\nAccepted; hono 4.7.2 reviewed.\n\n## References\n\n- hono 4.7.2 release notes\n\n## Historique\n\n| Paquet | Version |\n|---|---|\n| hono | 4.7.2 |\n",
			nil},
		{"a record in a superseded folder is out of force", "docs/adr/superseded/0010-x.md",
			"# 10. Server\n\n## Decision\n\nWe pin hono to 4.7.2.\n",
			nil},
		{"an accepted record in an archive folder is out of force", "docs/adr/archive/0011-x.md",
			"# 11. Server\n\nStatus: Accepted\n\n## Decision\n\nWe pin hono to 4.7.2.\n",
			nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec, ws := Parse(tt.path, []byte(tt.doc))
			recs, _ := Ground([]Record{rec}, ws, Declared(issue35Repo))
			got := pinsOf(recs[0])
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("pins (-want +got):\n%s\nstatus %q rejected: %+v", diff, recs[0].Status, recs[0].Rejected)
			}
		})
	}
}

// TestDiscoverDecisionNames35: folders and single files named for
// decisions are found without a status line: hidden .adr/, Decision-Log/,
// a subfolder of doc/decisions/, a root DECISOES.md or a
// DECISIONS_NEEDED.md that writes decisions; a notes file and a folder too
// deep are not.
func TestDiscoverDecisionNames35(t *testing.T) {
	rec := &fstest.MapFile{Data: []byte("# 1. X\n\nWe use hono.\n")}
	for _, tt := range []struct {
		name  string
		files fstest.MapFS
		want  []string
	}{
		{"hidden .adr folder", fstest.MapFS{".adr/0001-x.md": rec, ".cache/0001-x.md": rec}, []string{".adr"}},
		{"Decision-Log folder", fstest.MapFS{"Decision-Log/0003-x.md": rec}, []string{"Decision-Log"}},
		{"subfolder of a decisions folder", fstest.MapFS{"doc/decisions/technical/TDR-0004-x.md": rec}, []string{"doc/decisions/technical"}},
		{"too deep without a status", fstest.MapFS{"a/b/c/adr/0001-x.md": rec}, nil},
		{"single files named for decisions", fstest.MapFS{
			"DECISOES.md":              {Data: []byte("# Decisões de versões\n\n- **hono:** 4.7.2\n")},
			"docs/DECISIONS_NEEDED.md": {Data: []byte("# Plan\n\n## 1) Hashing\nDecision: `argon2@0.41.1`.\n")},
			"docs/decision_record.md":  {Data: []byte("# Notes\n\nNothing decided here.\n")},
		}, []string{"DECISOES.md", "docs/DECISIONS_NEEDED.md"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Discover(tt.files).Dirs); diff != "" {
				t.Errorf("Dirs (-want +got):\n%s", diff)
			}
		})
	}
}
