package controller

import (
	"encoding/json"
	"reflect"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// TestFinalizersPatchIsTheMergeFromPatch: the finalizer patch built
// directly says what controller-runtime's optimistic-lock merge patch of
// the same change says.
func TestFinalizersPatchIsTheMergeFromPatch(t *testing.T) {
	for _, before := range [][]string{nil, {"example.com/other"}} {
		tn := driftTenant()
		tn.ResourceVersion = "4711"
		tn.Finalizers = before
		old := tn.DeepCopy()
		controllerutil.AddFinalizer(tn, v1alpha1.Finalizer)

		want, err := client.MergeFromWithOptions(old, client.MergeFromWithOptimisticLock{}).Data(tn)
		if err != nil {
			t.Fatal(err)
		}
		p, err := finalizersPatch(tn)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Data(tn)
		if err != nil {
			t.Fatal(err)
		}
		var w, g map[string]any
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(w, g) || p.Type() != client.Merge.Type() {
			t.Errorf("finalizers %v: patch %s of type %s, want %s of type %s", before, got, p.Type(), want, client.Merge.Type())
		}
	}
}
