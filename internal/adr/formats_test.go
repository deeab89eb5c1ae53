package adr

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// formatTests are records in MDX, AsciiDoc and reStructuredText as teams
// write them (issue 35): read, or unreadable at the line pinbot cannot
// read. Each fails on 38dce0e, which warned "unsupported ADR file type"
// and read nothing.
var formatTests = []struct {
	name       string
	path       string
	data       string
	status     string
	pins       []string // "eco pkg version @line"
	unreadable []int    // lines of unreadable warnings
}{
	{
		name: "mdx with front matter, imports and components",
		path: "website/docs/decisions/0004-pin-kopf.mdx",
		data: `---
sidebar_position: 4
---
import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';

# 4. Pin kopf

## Status

Accepted (2026-08-07)

## Decision

<Tabs>
<TabItem value="pip">

We pin kopf==1.40.1.

</TabItem>
</Tabs>
`,
		status: "accepted (2026-08-07)",
		pins:   []string{"pip kopf 1.40.1 @18"},
	},
	{
		name:       "mdx component holding a version fails closed",
		path:       "docs/adr/0005-x.mdx",
		data:       "# 5. X\n\n## Status\n\nAccepted\n\n## Decision\n\n<PinTable pins={[{name: 'kopf', version: '1.40.1'}]} />\n",
		status:     "accepted",
		unreadable: []int{9},
	},
	{
		name: "asciidoc with attributes, status section and a source block",
		path: "docs/architecture/decisions/0007-pin-log4j.adoc",
		data: `= ADR-007: Pin log4j-core
:toc:
:log4j-version: 2.17.1

== Status

Accepted

== Context

CVE-2021-44228.

== Decision

[source,xml]
----
<dependency>
  <groupId>org.apache.logging.log4j</groupId>
  <artifactId>log4j-core</artifactId>
  <version>2.17.1</version>
</dependency>
----

We pin kopf {log4j-version} as well: kopf=={log4j-version}.
`,
		status: "accepted",
		pins:   []string{"maven org.apache.logging.log4j:log4j-core 2.17.1 @20", "pip kopf 2.17.1 @24"},
	},
	{
		name:   "asciidoc status attribute and bold label, superseded",
		path:   "docs/adr/0008-x.adoc",
		data:   "= 8. X\n:status: Accepted\n\n*Status:* Superseded by ADR-9\n\n== Decision\n\nkopf==1.40.1\n",
		status: "accepted",
		pins:   []string{"pip kopf 1.40.1 @8"},
	},
	{
		name:   "asciidoc table row status",
		path:   "docs/adr/0009-x.adoc",
		data:   "= 9. X\n\n|===\n|Field |Value\n\n|Status\n|Vervangen door ADR-10\n|===\n\n== Decision\n\nkopf==1.40.1\n",
		status: "vervangen door adr-10",
		pins:   []string{"pip kopf 1.40.1 @12"},
	},
	{
		name:       "asciidoc include and a table it cannot lay out fail closed",
		path:       "docs/adr/0010-x.adoc",
		data:       "= 10. X\n\n== Status\n\nAccepted\n\n== Decision\n\ninclude::pins.adoc[]\n\n|===\n|Package\n|kopf 1.40.1\n2+|x\n|===\n",
		status:     "accepted",
		unreadable: []int{9, 11},
	},
	{
		name: "rst with underlined headings, field list and code-block",
		path: "doc/decisions/0011-pin-requests.rst",
		data: strings.ReplaceAll(`==========================
11. Pin requests and kopf
==========================

:Status: Akzeptiert
:Date: 2026-08-07

Context
=======

BTrequestsBT 2.32.0 broke our proxies.

Decision
========

.. code-block:: text

   requests==2.31.0

We also pin BTkopf==1.40.1BT.

Consequences
============

None.
`, "BT", "\x60\x60"),
		status: "akzeptiert",
		pins:   []string{"pip kopf 1.40.1 @20", "pip requests 2.31.0 @18"},
	},
	{
		name:   "rst status section, superseded",
		path:   "doc/decisions/0012-x.rst",
		data:   "12. X\n#####\n\nStatus\n******\n\nAccepted\n\nSuperseded by 13\n\nDecision\n********\n\n* kopf==1.40.1\n",
		status: "accepted; superseded by 13",
		pins:   []string{"pip kopf 1.40.1 @14"},
	},
	{
		name:       "rst list-table and include fail closed",
		path:       "doc/decisions/0013-x.rst",
		data:       "13. X\n=====\n\nStatus\n------\n\nAccepted\n\nDecision\n--------\n\n.. list-table::\n\n   * - kopf\n     - 1.40.1\n\n.. include:: pins.rst\n",
		status:     "accepted",
		unreadable: []int{12, 17},
	},
}

func TestFormats(t *testing.T) {
	for _, tt := range formatTests {
		t.Run(tt.name, func(t *testing.T) {
			rec, ws := Parse(tt.path, []byte(tt.data))
			if rec.Status != tt.status {
				t.Errorf("status %q, want %q", rec.Status, tt.status)
			}
			var pins []string
			for _, p := range rec.Pins {
				pins = append(pins, fmt.Sprintf("%s %s %s @%d", p.Ecosystem, p.Package, p.Version, p.Source.Line))
			}
			slices.Sort(pins)
			if diff := cmp.Diff(tt.pins, pins); diff != "" {
				t.Errorf("pins (-want +got):\n%s\nwarnings %v", diff, ws)
			}
			var bad []int
			for _, w := range ws {
				if w.Unreadable {
					bad = append(bad, w.Line)
				}
				if strings.Contains(w.Message, "unsupported") {
					t.Errorf("warning %s: the format is read", w)
				}
			}
			if diff := cmp.Diff(tt.unreadable, bad); diff != "" {
				t.Errorf("unreadable lines (-want +got):\n%s\nwarnings %v", diff, ws)
			}
		})
	}
}

// FuzzFormats fuzzes the MDX, AsciiDoc and reStructuredText readers: the
// Markdown they make keeps the record's invariants.
func FuzzFormats(f *testing.F) {
	for _, tt := range formatTests {
		f.Add(tt.path[strings.LastIndex(tt.path, "."):], []byte(tt.data))
	}
	f.Add(".rst", []byte(".. code-block:: xml\n   <a/>\nx\n"))
	f.Add(".adoc", []byte("|===\n|a|b\n|c\n----\n"))
	f.Add(".mdx", []byte("---\n<X>\n```\n"))
	f.Fuzz(func(t *testing.T, ext string, data []byte) {
		switch ext {
		case ".mdx", ".adoc", ".rst":
		default:
			ext = ".adoc"
		}
		checkParse(t, "docs/adr/0001-fuzz"+ext, data)
	})
}
