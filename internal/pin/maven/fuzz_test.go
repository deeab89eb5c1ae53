package maven

import (
	"testing"

	"github.com/kubetenant/kubetenant/internal/pin/manifest/manifesttest"
)

const seedParent = `<project><groupId>g</groupId><artifactId>parent</artifactId><version>1</version><packaging>pom</packaging>
<properties><v>2.15.3</v></properties>
<dependencyManagement><dependencies><dependency><groupId>g</groupId><artifactId>m</artifactId><version>${v}</version></dependency>
<dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-dependencies</artifactId><version>3.2.0</version><type>pom</type><scope>import</scope></dependency>
</dependencies></dependencyManagement>
<profiles><profile><id>p</id><activation><activeByDefault>true</activeByDefault></activation><properties><v>2.16.0</v></properties></profile></profiles>
</project>`

const seedChild = `<project><parent><groupId>g</groupId><artifactId>parent</artifactId><version>${revision}</version></parent><artifactId>c</artifactId>
<dependencies><dependency><groupId>g</groupId><artifactId>m</artifactId></dependency><dependency><groupId>g</groupId><artifactId>x</artifactId><version>${v}</version></dependency></dependencies>
<build><plugins><plugin><artifactId>maven-surefire-plugin</artifactId><dependencies><dependency><groupId>g</groupId><artifactId>y</artifactId><version>1</version></dependency></dependencies></plugin></plugins></build>
</project>`

// FuzzResolvePoms resolves a parent, a child and a .mvn/maven.config.
func FuzzResolvePoms(f *testing.F) {
	f.Add([]byte(seedParent), []byte(seedChild), []byte("-Dv=2.17.1 -Pp"))
	f.Add([]byte(seedParent), []byte("<project/>"), []byte("-s x.xml"))
	f.Fuzz(func(t *testing.T, parent, child, config []byte) {
		manifesttest.CheckResolver(t, resolvePoms, map[string][]byte{"pom.xml": parent, "svc/pom.xml": child, ".mvn/maven.config": config})
	})
}

func TestResolvePomsSeeds(t *testing.T) {
	ms, err := resolvePoms(map[string][]byte{"pom.xml": []byte(seedParent), "svc/pom.xml": []byte(seedChild), ".mvn/maven.config": []byte("-Dv=2.17.1")})
	if err != nil || len(ms) != 2 {
		t.Fatalf("%v, %v", ms, err)
	}
	got := map[string]string{}
	for _, d := range ms[1].Deps {
		got[d.Pkg+" "+d.Section] = d.Value
	}
	// maven.config's -D beats the profile active by default, which beats
	// the parent's property; the managed version follows.
	for k, want := range map[string]string{"g:m dependencies": "2.17.1", "g:x dependencies": "2.17.1", "g:y plugins maven-surefire-plugin dependencies": "1"} {
		if got[k] != want {
			t.Errorf("%s = %q, want %q (all: %v)", k, got[k], want, got)
		}
	}
	// The unversioned surefire plugin, and the BOM outside the repository,
	// which manages every package the module does not declare.
	if u := ms[1].Unresolved; len(u) != 2 || u[0].Pkg != "org.apache.maven.plugins:maven-surefire-plugin" ||
		u[1].Pkg != "" || u[1].By != "org.springframework.boot:spring-boot-dependencies" || u[1].At != "3.2.0" || len(u[1].Except) != 4 {
		t.Errorf("unresolved %+v, want the unversioned surefire plugin and the BOM", u)
	}
}
