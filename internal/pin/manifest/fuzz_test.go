package manifest

import (
	"errors"
	"testing"
)

// FuzzParseXML: any input parses or fails with a *ReadError naming the
// file; a declared ISO-8859-1 document decodes any byte.
func FuzzParseXML(f *testing.F) {
	f.Add([]byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<project><!-- Ren\xe9 --><a>\xe9</a></project>\n"))
	f.Add([]byte("<Project><PropertyGroup><V>1</V></PropertyGroup></Project>"))
	f.Add([]byte("<?xml version=\"1.0\" encoding=\"windows-1252\"?><a/>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := ParseXML("pom.xml", data)
		if err != nil {
			var re *ReadError
			if !errors.As(err, &re) || re.Path != "pom.xml" {
				t.Fatalf("error %v is not a *ReadError for pom.xml", err)
			}
			return
		}
		if n == nil || n.Name == "" {
			t.Fatalf("no root element: %+v", n)
		}
	})
}

func TestLatin1(t *testing.T) {
	n, err := ParseXML("pom.xml", []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<a>Ren\xe9</a>\n"))
	if err != nil || n.Text != "René" {
		t.Fatalf("got %+v, %v; want the text René", n, err)
	}
	if _, err := ParseXML("pom.xml", []byte("<?xml version=\"1.0\" encoding=\"windows-1252\"?><a/>")); err == nil {
		t.Fatal("an encoding pinbot does not decode was accepted")
	}
}
