package pin

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsKubernetesManifest(t *testing.T) {
	dirs := []string{"/deploy/base", "/k8s/**"}
	for p, want := range map[string]bool{
		"deploy/base/gateway.yaml":        true,
		"deploy/base/gateway.yml":         true,
		"deploy/overlays/prod/patch.yaml": false,
		"k8s/apps/ledger/deployment.yaml": true,
		"k8s/Chart.yaml":                  false, // a chart, read as one
		"k8s/docker-compose.yml":          false, // a compose file
		"deploy/base/README.md":           false,
		"gateway.yaml":                    false,
	} {
		if got := IsKubernetesManifest(p, dirs); got != want {
			t.Errorf("IsKubernetesManifest(%q) = %v, want %v", p, got, want)
		}
	}
	if !IsKubernetesManifest("app.yaml", []string{"/"}) || IsKubernetesManifest("sub/app.yaml", []string{"/"}) {
		t.Error(`"/" covers the root folder only`)
	}
}

const gatewayYAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: gateway
spec:
  template:
    spec:
      initContainers:
        - name: wait
          image: busybox:1.36.1
      containers:
        - name: envoy
          image: envoyproxy/envoy:v1.30.4
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: compact
spec:
  jobTemplate:
    spec:
      template:
        spec:
          containers:
            - name: compact
              image: docker.io/library/postgres:16.3@sha256:e89da2c083a5405943408b6807cd1fd25dc9010c1294e30611b841778bedc653
`

func TestDiffImages(t *testing.T) {
	head := strings.Replace(gatewayYAML, "envoyproxy/envoy:v1.30.4", "envoyproxy/envoy:v1.31.0", 1)
	got, err := DiffImages([]FilePair{{Path: "deploy/gateway.yaml", Base: []byte(gatewayYAML), Head: []byte(head)}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{Ecosystem: Docker, Package: "envoyproxy/envoy", Manifest: "deploy/gateway.yaml", Old: "v1.30.4", New: "v1.31.0"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("DiffImages (-want +got):\n%s", d)
	}
	added, err := DiffImages([]FilePair{{Path: "deploy/gateway.yaml", Head: []byte(gatewayYAML)}})
	if err != nil || len(added) != 3 {
		t.Fatalf("added file: %v, %v; want 3 images", added, err)
	}
	for _, tt := range []struct{ content, want string }{
		{"kind: Pod\nspec:\n  containers:\n    - name: a\n      image: \"{{ .Values.image }}\"\n", "deploy/pod.yaml:5: image"},
		{"kind: Pod\nspec:\n  containers: [\n", "deploy/pod.yaml:"},
	} {
		_, err := DiffImages([]FilePair{{Path: "deploy/pod.yaml", Head: []byte(tt.content)}})
		var re *ReadError
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || !errors.As(err, &re) {
			t.Errorf("error = %v, want a ReadError starting %q", err, tt.want)
		}
	}
}

func FuzzKubernetes(f *testing.F) {
	f.Add([]byte(gatewayYAML))
	addFileSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		same, err := DiffImages([]FilePair{{Path: "k8s/x.yaml", Base: data, Head: data}})
		if err != nil || same != nil {
			t.Fatalf("identical file: %v %v", same, err)
		}
		cs, err := DiffImages([]FilePair{{Path: "k8s/x.yaml", Head: data}})
		if err != nil {
			var re *ReadError
			if !errors.As(err, &re) || re.Path != "k8s/x.yaml" {
				t.Fatalf("error %v is not a ReadError for the file", err)
			}
			return
		}
		for _, c := range cs {
			if c.Ecosystem != Docker || c.Package == "" || c.New == "" || c.Old != "" {
				t.Fatalf("bad change %+v", c)
			}
		}
	})
}
