package controller

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

func TestStripCached(t *testing.T) {
	mf := []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}}
	last := corev1.LastAppliedConfigAnnotation
	for _, tc := range []struct {
		name string
		in   map[string]string
		want map[string]string
	}{
		{"no annotations", nil, nil},
		{"only last-applied", map[string]string{last: `{"spec":{}}`}, nil},
		{"others kept", map[string]string{last: `{"spec":{}}`, "team": "a"}, map[string]string{"team": "a"}},
		{"without last-applied", map[string]string{"team": "a"}, map[string]string{"team": "a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &v1alpha1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "t", Annotations: tc.in, ManagedFields: mf, Finalizers: []string{v1alpha1.Finalizer}}}
			out, err := CacheOptions().DefaultTransform(in)
			if err != nil {
				t.Fatal(err)
			}
			got := out.(*v1alpha1.Tenant)
			if got.ManagedFields != nil {
				t.Errorf("managedFields kept: %v", got.ManagedFields)
			}
			if !maps.Equal(got.Annotations, tc.want) || (tc.want == nil) != (got.Annotations == nil) {
				t.Errorf("annotations %v, want %v", got.Annotations, tc.want)
			}
			if got.Name != "t" || len(got.Finalizers) != 1 {
				t.Errorf("other metadata changed: %+v", got.ObjectMeta)
			}
		})
	}
	// What is not an object passes unchanged.
	if out, err := CacheOptions().DefaultTransform("x"); err != nil || out != "x" {
		t.Errorf("a non-object: %v, %v", out, err)
	}
}
