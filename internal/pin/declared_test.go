package pin

import (
	"errors"
	"fmt"
	"strings"
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

// TestPnpmWorkspace (ADR 0401): pnpm-workspace.yaml's catalogs and
// overrides are declarations of their packages; a pull request moving a
// catalog entry changes that package (on e31bec5 it was an input pinbot
// did not evaluate); packageExtensions is refused, naming its line, and
// patchedDependencies, which moves no version, is not.
func TestPnpmWorkspace(t *testing.T) {
	ws := "packages:\n  - apps/*\ncatalog:\n  typescript: 6.0.3\n  zod: ^4.4.3\ncatalogs:\n  react19:\n    react: 19.2.1\noverrides:\n  left-pad: 1.3.0\n"
	ds, ok, err := Declarations("pnpm-workspace.yaml", []byte(ws))
	if !ok || err != nil {
		t.Fatalf("Declarations: ok %v, err %v", ok, err)
	}
	var got []string
	for _, d := range ds {
		got = append(got, fmt.Sprintf("%s %s %q exact=%q line %d", d.Ecosystem, d.Package, d.Value, d.Exact, d.Line))
	}
	want := []string{
		`npm typescript "6.0.3" exact="6.0.3" line 4`,
		`npm zod "^4.4.3" exact="" line 5`,
		`npm react "19.2.1" exact="19.2.1" line 8`,
		`npm left-pad "1.3.0" exact="1.3.0" line 10`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}

	head := strings.Replace(ws, "typescript: 6.0.3", "typescript: 6.0.4", 1)
	cs, err := DiffFiles([]FilePair{{Path: "pnpm-workspace.yaml", Base: []byte(ws), Head: []byte(head)}})
	if err != nil || len(cs) != 1 || cs[0].Package != "typescript" || cs[0].Old != "6.0.3" || cs[0].New != "6.0.4" {
		t.Errorf("DiffFiles of a catalog bump: %+v, %v; want typescript 6.0.3 → 6.0.4", cs, err)
	}

	_, _, err = Declarations("pnpm-workspace.yaml", []byte("catalog:\n  react: 19.2.1\npackageExtensions:\n  react-redux:\n    peerDependencies:\n      react-dom: '*'\n"))
	var re *ReadError
	if !errors.As(err, &re) || re.Line != 3 {
		t.Errorf("packageExtensions: err %v, want a read error at line 3", err)
	}
	if ds, _, err := Declarations("pnpm-workspace.yaml", []byte("catalog:\n  react: 19.2.1\npatchedDependencies:\n  react@19.2.1: patches/react.patch\n")); err != nil || len(ds) != 1 {
		t.Errorf("patchedDependencies: %+v, %v; want the catalog's one declaration", ds, err)
	}
}
