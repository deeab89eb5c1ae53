package adr

import (
	"strings"
	"testing"
	"testing/fstest"
)

// repo389 is a repository of our own: a Next.js front end and a Spring Boot
// service, two exact npm pins, one npm range, a Maven parent and a
// dependency pinned exactly.
var repo389 = fstest.MapFS{
	"web/package.json": {Data: []byte(`{"dependencies": {"next": "15.1.12", "react": "^18.3.1", "@tanstack/react-query": "5.59.0"}}`)},
	"api/pom.xml": {Data: []byte(`<project>
  <parent><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-parent</artifactId><version>3.2.1</version></parent>
  <dependencies>
    <dependency><groupId>org.flywaydb</groupId><artifactId>flyway-core</artifactId><version>10.4.1</version></dependency>
  </dependencies>
</project>`)},
}

// TestAuditNamesAnywhereOnTheLine (ADR 0389): a decision line that names a
// package a manifest pins exactly and writes that version, wherever the
// two stand on the line and by the product's name in words, with no pin
// read from it, fails closed naming the line. Each "unread" case passed
// silently on cc745be (no pin, no warning).
func TestAuditNamesAnywhereOnTheLine(t *testing.T) {
	for _, c := range []struct {
		line   string
		unread string // the package the warning names, "" for none
	}{
		{"The frontend stays on 15.1.12 of Next.js until the migration is finished.", "next"},
		{"| 15.1.12 | Next.js | frontend |", "next"},
		{"Spring Boot remains the framework; the build uses the 3.2.1 release of it.", "spring-boot-starter-parent"},
		{"Migrations run with Flyway, whose release in use is 10.4.1, on start-up.", "flyway-core"},
		// Not audited: a range in the manifest, another version, a name
		// with a package's punctuation that is not the package's, a
		// sentence that denies it.
		{"React 18.3.1 renders the pages; 18.3.1 is what the lock file resolved.", ""},
		{"The frontend stays on 15.1.11 of Next.js.", ""},
		{"The frontend stays on 15.1.12 of next-auth.", ""},
		{"We do not pin Next.js 15.1.12.", ""},
	} {
		doc := "# 3. Stack\n\n## Status\n\nAccepted\n\n## Decision\n\n" + c.line + "\n"
		rec, ws := Parse("docs/adr/0003-stack.md", []byte(doc))
		recs, ws := Ground([]Record{rec}, ws, Declared(repo389))
		if len(recs[0].Pins) != 0 {
			t.Errorf("%s: pins %v; the case is for a line the reader does not take", c.line, recs[0].Pins)
		}
		var unread []Warning
		for _, w := range ws {
			if w.Unreadable {
				unread = append(unread, w)
			}
		}
		switch {
		case c.unread == "" && len(unread) > 0:
			t.Errorf("%s: unexpected unreadable warning %s:%d: %s", c.line, unread[0].Path, unread[0].Line, unread[0].Message)
		case c.unread != "" && (len(unread) != 1 || unread[0].Line != 9 || !strings.Contains(unread[0].Message, "names "+c.unread+" ") || !strings.Contains(unread[0].Message, "fails closed")):
			t.Errorf("%s: unreadable warnings %+v, want one at line 9 naming %s", c.line, unread, c.unread)
		}
	}
}

func TestAuditWords(t *testing.T) {
	got := strings.Join(auditWords("Use `kopf==1.40.1`, **@nestjs/core@10.3.2** and [Next.js](x) (v15.1.12)."), " ")
	if want := "use kopf 1.40.1 @nestjs/core 10.3.2 and next.js x v15.1.12"; got != want {
		t.Errorf("auditWords = %q, want %q", got, want)
	}
}
