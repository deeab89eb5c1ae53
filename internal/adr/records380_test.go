package adr

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// repo380 is a repository of our own: an npm app, a Python service and an
// Argo CD app-of-apps whose values name each Application apart from the
// chart it installs.
var repo380 = fstest.MapFS{
	"web/package.json": {Data: []byte(`{"dependencies": {"hono": "4.7.2", "zod": "3.23.8", "react": "19.1.0", "react-dom": "19.1.0", "drizzle-orm": "0.45.2"},
 "devDependencies": {"@nestjs/core": "10.3.2", "@nestjs/common": "10.3.2", "@astrojs/starlight": "0.30.1", "vite": "^6.1.0"}}`)},
	"svc/requirements.txt": {Data: []byte("kopf==1.40.1\nhttpx>=0.27\n")},
	"deploy/apps/values.yaml": {Data: []byte(`applications:
  - name: mesh-crds
    source:
      repoURL: oci://registry.example.org/charts/service-mesh-crds
      targetRevision: v2.4.1
      path: .
  - name: mesh
    source:
      repoURL: oci://registry.example.org/charts/service-mesh
      targetRevision: v2.4.1
      helm:
        releaseName: meshctl
  - name: cache
    source:
      repoURL: https://charts.example.org
      chart: valkey
      targetRevision: 1.9.0
`)},
}

func pins380(t *testing.T, doc string) []string {
	t.Helper()
	rec, ws := Parse("docs/adr/0021-x.md", []byte(doc))
	recs, _ := Ground([]Record{rec}, ws, Declared(repo380))
	return pinsOf(recs[0])
}

// TestWrappedSentences (ADR 0380): a sentence hard-wrapped over lines is
// one sentence; the names and pin words above the version's line count.
// The first three cases fail on d551f80.
func TestWrappedSentences(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      []string
	}{
		{"name at the end of one line, version on the next", "# 21. API\n\nStatus: Accepted\n\n## Decision\n\nThe API is served by `hono`\nat 4.7.2 on Node.\n",
			[]string{"npm hono 4.7.2"}},
		{"pin word and name on one line, version on the next", "# 21. Operator\n\nStatus: Accepted\n\n## Decision\n\nUntil the watch leak is fixed upstream we pin kopf to\n`1.40.1` in the service.\n",
			[]string{"pip kopf 1.40.1"}},
		{"wrapped list item", "# 21. Schemas\n\nStatus: Accepted\n\n## Decision\n\n- Validation goes through `zod`,\n  held at **3.23.8** until v4 settles.\n- Nothing else changes.\n",
			[]string{"npm zod 3.23.8"}},
		{"a new list item is a new sentence", "# 21. Schemas\n\nStatus: Accepted\n\n## Decision\n\n- We pin zod\n- 3.23.8 is the version the docs mention.\n",
			nil},
		{"a blank line ends the sentence", "# 21. Schemas\n\nStatus: Accepted\n\n## Decision\n\nWe pin zod\n\n3.23.8 was the version the spike used.\n",
			nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, pins380(t, tt.doc)); diff != "" {
				t.Errorf("pins (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNameLists (ADR 0380): names joined by "+", "&", "and" (or the
// word in the record's language) before one version without "to"/"at"
// are each a candidate a manifest must confirm exactly. The first three
// cases fail on d551f80.
func TestNameLists(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      []string
	}{
		{"plus between names", "# 21. UI\n\nStatus: Accepted\n\n## Decision\n\nBump `react` + `react-dom` `18.3.1 → 19.1.0` in one change.\n",
			[]string{"npm react 19.1.0", "npm react-dom 19.1.0"}},
		{"and, in prose", "# 21. UI\n\nStatus: Accepted\n\n## Decision\n\nThe UI uses react and react-dom 19.1.0.\n",
			[]string{"npm react 19.1.0", "npm react-dom 19.1.0"}},
		{"German und", "# 21. UI\n\nStatus: akzeptiert\n\n## Entscheidung\n\nWir nutzen react und react-dom 19.1.0.\n",
			[]string{"npm react 19.1.0", "npm react-dom 19.1.0"}},
		{"a listed name the manifests do not pin at that version is no pin", "# 21. UI\n\nStatus: Accepted\n\n## Decision\n\nThe UI uses preact and react-dom 19.1.0.\n",
			[]string{"npm react-dom 19.1.0"}},
		{"a pin word without to/at: the listed names are candidates only", "# 21. UI\n\nStatus: Accepted\n\n## Decision\n\nWe pin left-pad and right-pad 1.3.0.\n",
			nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, pins380(t, tt.doc)); diff != "" {
				t.Errorf("pins (-want +got):\n%s", diff)
			}
		})
	}
}

// TestArgoApplicationNames (ADR 0381): a chart written by the name the
// repository gives its Argo CD Application, or its Helm release name, is
// that chart, at the version the Application holds exactly. Fails on
// d551f80 for the first three.
func TestArgoApplicationNames(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      []string
	}{
		{"application names, wrapped, upgrade arrow", "# 21. Mesh 2.4\n\n**Status:** Accepted\n\n## Decision\n\n- **Bump** in `deploy/apps/values.yaml`: `mesh-crds` + `mesh`\n  `v2.3.0 → v2.4.1`, in one change.\n",
			[]string{"helm service-mesh-crds v2.4.1", "helm service-mesh v2.4.1"}},
		{"release name", "# 21. Mesh\n\nStatus: Accepted\n\n## Decision\n\nWe run meshctl v2.4.1.\n",
			[]string{"helm service-mesh v2.4.1"}},
		{"chart key source, application name", "# 21. Cache\n\nStatus: Accepted\n\n## Decision\n\nUpgrade `cache` to 1.9.0.\n",
			[]string{"helm valkey 1.9.0"}},
		{"an application name at another version is no pin", "# 21. Cache\n\nStatus: Accepted\n\n## Decision\n\nUpgrade `cache` to 1.10.0.\n",
			nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, pins380(t, tt.doc)); diff != "" {
				t.Errorf("pins (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProductNames (ADR 0380): a product's name of two or three words in
// prose ("Drizzle ORM 0.45.2"), and a product released as one npm
// scope ("NestJS 10.3.2" is each @nestjs package pinned exactly at that
// version), grounded only where a manifest pins exactly that version. The
// first three cases fail on d551f80.
func TestProductNames(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      []string
	}{
		{"two words joined", "# 21. Data\n\nStatus: Accepted\n\n## Decision\n\nQueries go through Drizzle ORM 0.45.2, migrations too.\n",
			[]string{"npm drizzle-orm 0.45.2"}},
		{"a product released as one scope", "# 21. API\n\nStatus: Accepted\n\n## Decision\n\nThe API moves to NestJS 10.3.2.\n",
			[]string{"npm @nestjs/core 10.3.2", "npm @nestjs/common 10.3.2"}},
		{"in a list with other products, Italian", "# 21. Stack\n\n## Stato\n\nAccettato\n\n## Decisione\n\nVersioni pinate nel lockfile:\n\n- Hono 4.7.2, Nest JS 10.3.2\n",
			[]string{"npm hono 4.7.2", "npm @nestjs/core 10.3.2", "npm @nestjs/common 10.3.2"}},
		{"scope and name", "# 21. Docs\n\nStatus: Accepted\n\n## Decision\n\nDocs are built with Vite, Astro Starlight 0.30.1 and MDX.\n",
			[]string{"npm @astrojs/starlight 0.30.1"}},
		{"a scope at another version is no pin", "# 21. API\n\nStatus: Accepted\n\n## Decision\n\nThe API moves to NestJS 10.4.0.\n",
			nil},
		{"words that are not the product's name", "# 21. API\n\nStatus: Accepted\n\n## Decision\n\nWe considered Astro Pages 0.30.1 and rejected it.\n",
			nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := pins380(t, tt.doc)
			if diff := cmp.Diff(tt.want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("pins (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPinningTitleContext (ADR 0381): a record whose title says it pins
// and whose decision gives no pin names the versions it holds in its
// context; those a manifest pins at exactly that version are its pins.
// The first case fails on d551f80.
func TestPinningTitleContext(t *testing.T) {
	const ctx = "## Context\n\nThe operator and its HTTP client break in ways that look like network faults:\n\n- `kopf 1.40.1` is the last release without the watch leak.\n- `httpx 0.27.2` needs the matching h11.\n- We moved from `hono 4.6.0` to the current server last year.\n\n"
	for _, tt := range []struct {
		name, doc string
		want      []string
	}{
		{"title pins, decision says where", "# ADR 0004 - one pinned operator toolchain\n\n**Status** accepted\n\n" + ctx + "## Decision\n\nOne constant in `svc/settings.py`, read by the build and CI.\n",
			[]string{"pip kopf 1.40.1"}},
		{"a title that does not pin", "# ADR 0004 - operator toolchain\n\n**Status** accepted\n\n" + ctx + "## Decision\n\nOne constant in `svc/settings.py`, read by the build and CI.\n",
			nil},
		{"a decision that pins: the context stays context", "# ADR 0004 - pinned operator toolchain\n\n**Status** accepted\n\n" + ctx + "## Decision\n\nWe pin zod to 3.23.8.\n",
			[]string{"npm zod 3.23.8"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, pins380(t, tt.doc)); diff != "" {
				t.Errorf("pins (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStatusInMoreLanguages (ADR 0382): a status written in Italian,
// Korean, Russian, Polish, Swedish or Turkish is read; before, its label
// was not one and the record counted as having no status, so a proposed
// or rejected record's pins were enforced (or, with a known label, an
// accepted one's were in doubt). All but the Italian and Korean accepted,
// Polish draft and Swedish cases fail on d551f80.
func TestStatusInMoreLanguages(t *testing.T) {
	const dec = "\n\n## Decision\n\nWe pin zod to 3.23.8.\n"
	for _, tt := range []struct {
		name, doc string
		enforced  bool
	}{
		{"Italian accepted heading", "# 21. Schemi\n\n## Stato\n\nAccettato in A01." + dec, true},
		{"Italian proposed heading", "# 21. Schemi\n\n## Stato\n\nProposto" + dec, false},
		{"Korean proposed label", "# 21. 스키마\n\n상태: 제안됨" + dec, false},
		{"Korean accepted with English", "# 21. 스키마\n\n상태: 채택(Accepted) · 2026-07-04" + dec, true},
		{"Korean rejected", "# 21. 스키마\n\n**상태**: 거부됨" + dec, false},
		{"Russian superseded", "# 21. Схемы\n\nСтатус: Заменено на ADR-22" + dec, false},
		{"Polish accepted", "# 21. Schematy\n\nStatus: Zaakceptowana" + dec, true},
		{"Polish draft", "# 21. Schematy\n\nStatus: Szkic" + dec, false},
		{"Swedish rejected", "# 21. Scheman\n\nStatus: Avvisad" + dec, false},
		{"Turkish proposed", "# 21. Şemalar\n\nDurum: Önerildi" + dec, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec, _ := Parse("docs/adr/0021-x.md", []byte(tt.doc))
			if rec.Enforced != tt.enforced {
				t.Errorf("enforced = %v (status %q), want %v", rec.Enforced, rec.Status, tt.enforced)
			}
		})
	}
}

// TestPinWordsInOtherLanguages (ADR 0380): the sentence says to pin in the
// record's language. httpx is declared as a range (httpx>=0.27), so only
// a pin word makes 0.27.2 a pin; each case but the last fails on d551f80.
func TestPinWordsInOtherLanguages(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      []string
	}{
		{"French, active", "# 21. Client\n\nStatut : accepté\n\n## Décision\n\nNous épinglons httpx à 0.27.2.\n", []string{"pip httpx 0.27.2"}},
		{"French, passive", "# 21. Client\n\nStatut : accepté\n\n## Décision\n\nhttpx est figé à la version 0.27.2 jusqu'à nouvel ordre.\n", []string{"pip httpx 0.27.2"}},
		{"German, verb last", "# 21. Client\n\nStatus: akzeptiert\n\n## Entscheidung\n\nhttpx wird auf 0.27.2 gepinnt.\n", []string{"pip httpx 0.27.2"}},
		{"Italian", "# 21. Client\n\n## Stato\n\nAccettato\n\n## Decisione\n\nhttpx è fissato alla 0.27.2.\n", []string{"pip httpx 0.27.2"}},
		{"Spanish", "# 21. Cliente\n\nEstado: aceptado\n\n## Decisión\n\nFijamos httpx en 0.27.2.\n", []string{"pip httpx 0.27.2"}},
		{"Portuguese", "# 21. Cliente\n\nEstado: aceito\n\n## Decisão\n\nhttpx fica fixado na versão 0.27.2.\n", []string{"pip httpx 0.27.2"}},
		{"Japanese, no spaces", "# 21. クライアント\n\nステータス: 承認済み\n\n## 決定\n\nhttpxを0.27.2に固定する。\n", []string{"pip httpx 0.27.2"}},
		{"Korean", "# 21. 클라이언트\n\n상태: 채택\n\n## 결정\n\nhttpx를 0.27.2로 고정한다.\n", []string{"pip httpx 0.27.2"}},
		{"Chinese", "# 21. 客户端\n\n状态：已接受\n\n## 决定\n\n将 httpx 锁定在 0.27.2。\n", []string{"pip httpx 0.27.2"}},
		{"no pin word in any language", "# 21. Client\n\nStatut : accepté\n\n## Décision\n\nhttpx 0.27.2 est la dernière version publiée.\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, pins380(t, tt.doc)); diff != "" {
				t.Errorf("pins (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNegationsAndBounds (ADR 0382): a version the sentence denies, or
// bounds in words, is no pin even where a manifest pins exactly that
// version (hono 4.7.2, zod 3.23.8, kopf 1.40.1 are exact in repo380). The
// denied and bounded cases fail on d551f80; the last two are the pins
// next to them, kept.
func TestNegationsAndBounds(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      []string
	}{
		{"at least", "# 21. API\n\nStatus: Accepted\n\n## Decision\n\nAny server works; we require at least hono 4.7.2 for the router.\n", nil},
		{"or later", "# 21. API\n\nStatus: Accepted\n\n## Decision\n\nThe API needs hono 4.7.2 or later.\n", nil},
		{"German mindestens", "# 21. API\n\nStatus: akzeptiert\n\n## Entscheidung\n\nDie API braucht hono mindestens 4.7.2.\n", nil},
		{"French ou supérieure", "# 21. API\n\nStatut : accepté\n\n## Décision\n\nL'API exige hono 4.7.2 ou supérieure.\n", nil},
		{"Japanese 以上", "# 21. API\n\nステータス: 承認済み\n\n## 決定\n\nhono 4.7.2以上を使う。\n", nil},
		{"instead of", "# 21. Schemas\n\nStatus: Accepted\n\n## Decision\n\nWe validate with valibot instead of zod 3.23.8.\n", nil},
		{"do not pin", "# 21. Operator\n\nStatus: Accepted\n\n## Decision\n\nWe do not pin kopf to 1.40.1; the range in requirements is enough.\n", nil},
		{"French ne … pas", "# 21. Opérateur\n\nStatut : accepté\n\n## Décision\n\nNous n'épinglons pas kopf à 1.40.1.\n", nil},
		{"a pin next to a denial", "# 21. Schemas\n\nStatus: Accepted\n\n## Decision\n\nNot valibot: we keep zod at 3.23.8.\n", []string{"npm zod 3.23.8"}},
		{"at, not at least", "# 21. Operator\n\nStatus: Accepted\n\n## Decision\n\nkopf stays at 1.40.1, and the client follows.\n", []string{"pip kopf 1.40.1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec, ws := Parse("docs/adr/0021-x.md", []byte(tt.doc))
			recs, ws := Ground([]Record{rec}, ws, Declared(repo380))
			if diff := cmp.Diff(tt.want, pinsOf(recs[0])); diff != "" {
				t.Errorf("pins (-want +got):\n%s", diff)
			}
			// A line that says it is no pin is not an unread pin (ADR 0317).
			for _, w := range ws {
				if w.Unreadable {
					t.Errorf("unread-pin warning on a line that says it is no pin: %s", w)
				}
			}
		})
	}
}

// TestHeadingsInMoreLanguages (ADR 0382): decision headings and the parts
// that are not the decision (options, consequences, the state before,
// open questions) in more of the records' languages. Versions there are
// exact in repo380, so only the heading keeps them out. Each case fails
// on d551f80.
func TestHeadingsInMoreLanguages(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      []string
	}{
		{"Italian risks under the decision", "# 21. Schemi\n\n## Stato\n\nAccettato\n\n## Decisione\n\nUsiamo zod.\n\n### Rischi\n\nIl vecchio hono 4.7.2 resta nel servizio legacy.\n", nil},
		{"Spanish impact under the decision", "# 21. Esquemas\n\nEstado: aceptado\n\n## Decisión\n\nUsamos zod.\n\n### Impacto\n\n- hono 4.7.2 sigue en el servicio antiguo\n", nil},
		{"Portuguese options", "# 21. Esquemas\n\nEstado: aceito\n\n## Decisão\n\nUsamos zod.\n\n### Opções\n\n- hono 4.7.2\n", nil},
		{"Dutch consequences", "# 21. Schema's\n\nStatus: geaccepteerd\n\n## Besluit\n\nWe gebruiken zod.\n\n### Gevolgen\n\nhono 4.7.2 blijft in de oude dienst.\n", nil},
		{"no decision heading: the state before", "# 21. Schemas\n\nStatus: Accepted\n\n## Current state\n\nThe API runs hono 4.7.2.\n\n## Versions\n\n| Package | Version |\n|---|---|\n| zod | 3.23.8 |\n", []string{"npm zod 3.23.8"}},
		{"Polish decision heading", "# 21. Schematy\n\nStatus: Zaakceptowana\n\n## Decyzja\n\nPrzypinamy zod 3.23.8.\n\n## Konsekwencje\n\nhono 4.7.2 zostaje w starej usłudze.\n", []string{"npm zod 3.23.8"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, pins380(t, tt.doc)); diff != "" {
				t.Errorf("pins (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNounFormsAcrossLines (ADR 0380): "locks" and "pins" are nouns as
// often as verbs; before a name on the next line of a wrapped sentence
// they do not say to pin it (this repository's ADR 0254 read "record
// 5.31.0" as a pin in every ecosystem before this rule).
func TestNounFormsAcrossLines(t *testing.T) {
	doc := "# 21. Roots\n\nStatus: Accepted\n\n## Decision\n\n- A constraint in a folder that locked roots call takes the version those locks\n  record (`=5.31.0`) when every such lock meets it.\n"
	if got := pins380(t, doc); got != nil {
		t.Errorf("pins = %v, want none", got)
	}
}

// TestTitleIsNotAPart (ADR 0382): in a record without a decision heading,
// its title names the record; words in it ("Upgrade", "Migration",
// "Options") do not make every part below it context. Before, "# 5.
// Upgrade to hono 4.7.2" hid the whole record. The first case fails on
// d551f80.
func TestTitleIsNotAPart(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      []string
	}{
		{"upgrade in the title", "# 5. Upgrade the API server\n\nStatus: Accepted\n\n## Versions\n\n| Package | Version |\n|---|---|\n| hono | 4.7.2 |\n\n## Consequences\n\n| Package | Version |\n|---|---|\n| zod | 3.23.8 |\n",
			[]string{"npm hono 4.7.2"}},
		{"excluded parts below the title stay excluded", "# 5. API server\n\nStatus: Accepted\n\n## Migration\n\n| Package | Version |\n|---|---|\n| zod | 3.23.8 |\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, pins380(t, tt.doc)); diff != "" {
				t.Errorf("pins (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTableLayouts (ADR 0382): a version column headed by a short or pin
// word alone ("Ver.", "Pinned"), and a table of one dependency's facts
// (a label and a value per row). httpx is declared as a range, so only
// the table's form makes 0.27.2 a pin. The first three cases fail on
// d551f80.
func TestTableLayouts(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      []string
	}{
		{"Ver. column", "# 21. Client\n\nStatus: Accepted\n\n## Decision\n\n| Package | Ver. |\n|---|---|\n| httpx | 0.27.2 |\n", []string{"pip httpx 0.27.2"}},
		{"Pinned column", "# 21. Client\n\nStatus: Accepted\n\n## Decision\n\n| Library | Pinned | Why |\n|---|---|---|\n| `httpx` | `0.27.2` | h11 breaks on 0.28 |\n", []string{"pip httpx 0.27.2"}},
		{"label and value rows", "# 21. Operator\n\nStatus: Accepted\n\n## Decision\n\n| | |\n|---|---|\n| **Package** | `kopf` |\n| **Version** | `1.40.1` |\n| Reason | the watch leak |\n", []string{"pip kopf 1.40.1"}},
		{"label and value rows a manifest does not confirm", "# 21. Operator\n\nStatus: Accepted\n\n## Decision\n\n| Field | Value |\n|---|---|\n| Package | httpx |\n| Version | 0.28.1 |\n", nil},
		{"a partial version in label and value rows", "# 21. Operator\n\nStatus: Accepted\n\n## Decision\n\n| Field | Value |\n|---|---|\n| Package | kopf |\n| Version | 1.40 |\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, pins380(t, tt.doc)); diff != "" {
				t.Errorf("pins (-want +got):\n%s", diff)
			}
		})
	}
}
