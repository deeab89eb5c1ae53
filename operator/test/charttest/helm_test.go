package charttest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// kubeVersion is the Kubernetes version charts are rendered and linted for:
// the version of the test control plane in bin/k8s (K8S_VERSION in the Makefile).
const kubeVersion = "v1.37.2"

var (
	rootOnce sync.Once
	rootDir  string
	rootErr  error
)

// repoRoot is the directory holding go.work, found by walking up.
func repoRoot(t testing.TB) string {
	t.Helper()
	rootOnce.Do(func() {
		wd, err := os.Getwd()
		if err != nil {
			rootErr = err
			return
		}
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
				rootDir = d
				return
			}
			if filepath.Dir(d) == d {
				rootErr = fmt.Errorf("no go.work above %s", wd)
				return
			}
		}
	})
	if rootErr != nil {
		t.Fatalf("finding the repository root: %v", rootErr)
	}
	return rootDir
}

// chartDir is the directory of the named chart.
func chartDir(t testing.TB, chart string) string {
	t.Helper()
	return filepath.Join(repoRoot(t), "charts", chart)
}

// helmBin is $HELM, or the newest bin/helm-v* of the repository.
func helmBin(t testing.TB) string {
	t.Helper()
	if h := os.Getenv("HELM"); h != "" {
		return h
	}
	m, _ := filepath.Glob(filepath.Join(repoRoot(t), "bin", "helm-v*"))
	if len(m) == 0 {
		t.Fatal("helm not found: set HELM or run `make tools` (installs bin/helm-<version>)")
	}
	sort.Strings(m)
	return m[len(m)-1]
}

// helm runs helm with args and returns its combined output and error.
func helm(t testing.TB, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(helmBin(t), args...)
	// Keep helm away from the user's repositories, plugins and caches.
	home := t.TempDir()
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"),
	)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return out.String(), err
}

// release names a chart, the values files of a scenario, and where helm
// installs it.
type release struct {
	Chart     string
	Name      string
	Namespace string
	Values    []string // paths, relative to the chart directory
	Set       []string // helm --set arguments
}

func (r release) valueArgs(t testing.TB) []string {
	t.Helper()
	var args []string
	for _, v := range r.Values {
		if !filepath.IsAbs(v) {
			v = filepath.Join(chartDir(t, r.Chart), v)
		}
		args = append(args, "--values", v)
	}
	for _, s := range r.Set {
		args = append(args, "--set", s)
	}
	return args
}

// template renders r with helm template.
func (r release) template(t testing.TB) (string, error) {
	t.Helper()
	args := []string{"template", r.Name, chartDir(t, r.Chart), "--namespace", r.Namespace, "--kube-version", kubeVersion}
	return helm(t, append(args, r.valueArgs(t)...)...)
}

// lint runs helm lint --strict on r.
func (r release) lint(t testing.TB) (string, error) {
	t.Helper()
	args := []string{"lint", "--strict", chartDir(t, r.Chart), "--namespace", r.Namespace, "--kube-version", kubeVersion}
	return helm(t, append(args, r.valueArgs(t)...)...)
}

// render renders r and decodes the manifests, failing the test on error.
func (r release) render(t testing.TB) (string, []*unstructured.Unstructured) {
	t.Helper()
	out, err := r.template(t)
	if err != nil {
		t.Fatalf("helm template %s %v: %v\n%s", r.Chart, r.Values, err, out)
	}
	objs, err := decode(out)
	if err != nil {
		t.Fatalf("decoding helm template %s %v: %v", r.Chart, r.Values, err)
	}
	return out, objs
}

// decode splits a YAML stream into objects, skipping empty documents.
func decode(stream string) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	for i, doc := range strings.Split("\n"+stream, "\n---") {
		j, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if s := strings.TrimSpace(string(j)); s == "null" || s == "{}" {
			continue
		}
		// Unstructured decodes integers as int64, as the API machinery does.
		o := &unstructured.Unstructured{}
		if err := o.UnmarshalJSON(j); err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		objs = append(objs, o)
	}
	return objs, nil
}

// encode writes objs as a YAML stream.
func encode(t testing.TB, objs []*unstructured.Unstructured) string {
	t.Helper()
	var b strings.Builder
	for _, o := range objs {
		y, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatalf("encoding %s: %v", key(o), err)
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	return b.String()
}

// key is "Kind/name" of o.
func key(o *unstructured.Unstructured) string { return o.GetKind() + "/" + o.GetName() }

// index maps "Kind/name" to each object.
func index(objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	m := make(map[string]*unstructured.Unstructured, len(objs))
	for _, o := range objs {
		m[key(o)] = o
	}
	return m
}

// only keeps the objects whose kind is one of ks.
func only(objs []*unstructured.Unstructured, ks ...string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		for _, k := range ks {
			if o.GetKind() == k {
				out = append(out, o)
			}
		}
	}
	return out
}

// readValues decodes a chart's values.yaml.
func readValues(t testing.TB, chart string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(chartDir(t, chart), "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := yaml.Unmarshal(b, &v); err != nil {
		t.Fatalf("decoding %s values.yaml: %v", chart, err)
	}
	return v
}

// scenarios are the ci/*-values.yaml files of chart, relative to it.
func scenarios(t testing.TB, chart string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(chartDir(t, chart), "ci", "*-values.yaml"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no ci/*-values.yaml in chart %s (err %v)", chart, err)
	}
	var rel []string
	for _, p := range m {
		rel = append(rel, filepath.Join("ci", filepath.Base(p)))
	}
	return rel
}

// yamlMarshal encodes v as YAML.
func yamlMarshal(v any) ([]byte, error) { return yaml.Marshal(v) }
