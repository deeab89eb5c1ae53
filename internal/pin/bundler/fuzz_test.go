package bundler

import (
	"errors"
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"
)

func FuzzGemspec(f *testing.F) {
	f.Add([]byte("Gem::Specification.new do |s|\n  s.add_runtime_dependency(%q<rails>.freeze, [\"= 7.1.2\"])\n  s.add_development_dependency \"rspec\", \"~> 3.12\", \">= 3.12.1\"\nend\n"))
	f.Add([]byte("Gem::Specification.new do |spec|\n  spec.add_dependency \"rails\", RAILS_VERSION\nend\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pr, err := readGemspec("x.gemspec", data)
		if err != nil {
			var re *manifest.ReadError
			if !errors.As(err, &re) || re.Path != "x.gemspec" || re.Line == 0 {
				t.Fatalf("error %v is not a *ReadError with a line", err)
			}
			return
		}
		for _, d := range pr.Deps {
			if d.Pkg == "" {
				t.Fatalf("a dependency without a name: %+v", d)
			}
		}
	})
}

func TestGemspec(t *testing.T) {
	pr, err := readGemspec("x.gemspec", []byte("Gem::Specification.new do |s|\n  s.add_runtime_dependency(%q<rails>.freeze, [\"= 7.1.2\"])\n  s.add_development_dependency \"rspec\", \"~> 3.12\", \">= 3.12.1\"\n  s.add_dependency 'rack'\nend\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []manifest.Dep{
		{Eco: Name, Pkg: "rails", Section: "runtime", Value: "=7.1.2"},
		{Eco: Name, Pkg: "rspec", Section: "development", Value: "~>3.12, >=3.12.1"},
		{Eco: Name, Pkg: "rack", Section: "runtime", Value: ""},
	}
	if len(pr.Deps) != len(want) {
		t.Fatalf("got %+v", pr.Deps)
	}
	for i := range want {
		if pr.Deps[i] != want[i] {
			t.Errorf("dep %d = %+v, want %+v", i, pr.Deps[i], want[i])
		}
	}
}
