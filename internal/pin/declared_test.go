package pin

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResolvedDeclarations (ADR 0401): a Maven module whose version comes
// from its parent POM's property is declared at the module's manifest,
// on the first line naming it, with the version the resolver gives; a
// file that is no resolver's input adds nothing, and a file read alone
// (Declarations) still fails on the property it cannot see.
func TestResolvedDeclarations(t *testing.T) {
	files := map[string][]byte{
		"pom.xml": []byte("<project>\n  <groupId>io.example</groupId>\n  <artifactId>parent</artifactId>\n  <version>1.0.0</version>\n  <packaging>pom</packaging>\n" +
			"  <properties>\n    <jqwik.version>1.9.3</jqwik.version>\n  </properties>\n</project>\n"),
		"svc/pom.xml": []byte("<project>\n  <parent>\n    <groupId>io.example</groupId>\n    <artifactId>parent</artifactId>\n    <version>1.0.0</version>\n  </parent>\n  <artifactId>svc</artifactId>\n" +
			"  <dependencies>\n    <dependency>\n      <groupId>net.jqwik</groupId>\n      <artifactId>jqwik</artifactId>\n      <version>${jqwik.version}</version>\n    </dependency>\n  </dependencies>\n</project>\n"),
		"README.md": []byte("jqwik 1.9.3\n"),
	}
	var got []Declaration
	for _, d := range ResolvedDeclarations(files) {
		if d.Package == "net.jqwik:jqwik" {
			got = append(got, d)
		}
	}
	want := []Declaration{{Ecosystem: Maven, Package: "net.jqwik:jqwik", Manifest: "svc/pom.xml", Value: "1.9.3", Exact: "1.9.3", Line: 10}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ResolvedDeclarations (-want +got):\n%s", diff)
	}
	if _, _, err := Declarations("svc/pom.xml", files["svc/pom.xml"]); err == nil {
		t.Errorf("Declarations of the module alone: no error, want the parent's property unresolved")
	}
	if ds := ResolvedDeclarations(map[string][]byte{"README.md": files["README.md"]}); len(ds) != 0 {
		t.Errorf("ResolvedDeclarations of no input: %+v", ds)
	}
}
