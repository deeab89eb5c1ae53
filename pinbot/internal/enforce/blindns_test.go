package enforce

import (
	"strings"
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin"
)

// TestUnreadableFileOfTheSameNamespace is issue 36's reader follow-up: a
// change to a build.gradle beyond its plugins block (Groovy code pinbot
// does not run, ADR 0369) can move a pin written as maven, since Gradle
// resolves Maven coordinates; the verdict is error naming the file, as
// for a pin written as gradle. A pin of another namespace is not
// concerned.
func TestUnreadableFileOfTheSameNamespace(t *testing.T) {
	script := func(v string) string {
		return "plugins {\n    id 'java'\n}\n\ndependencies {\n    implementation \"com.fasterxml.jackson.core:jackson-databind:${jacksonVersion}\"\n    testImplementation 'org.junit.jupiter:junit-jupiter:" + v + "'\n}\n"
	}
	for _, tt := range []struct {
		eco  pin.Ecosystem
		want Verdict
	}{
		{pin.Ecosystem("maven"), Error},
		{pin.Ecosystem("gradle"), Error},
		{pin.Ecosystem("npm"), NotApplicable},
	} {
		t.Run(string(tt.eco), func(t *testing.T) {
			p := pin.Pin{Ecosystem: tt.eco, Package: "com.fasterxml.jackson.core:jackson-databind", Version: "2.17.2", Enforced: true, Source: pin.Source{Number: 40, Path: "adr/0040.md"}}
			r := evalTrees([]pin.Pin{p}, map[string]string{"app/build.gradle": script("5.10.2")}, map[string]string{"app/build.gradle": script("5.11.0")})
			if r.Verdict != tt.want {
				t.Fatalf("a pin written as %s, build.gradle's dependencies changed: verdict %s, want %s (%v)", tt.eco, r.Verdict, tt.want, r.Reasons)
			}
			if tt.want == Error && !strings.Contains(strings.Join(r.Errors, " "), "app/build.gradle") {
				t.Errorf("errors %v do not name app/build.gradle", r.Errors)
			}
		})
	}
}
