package controller

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
		w, g := decodeBoth(t, want, got)
		if !reflect.DeepEqual(w, g) || p.Type() != client.Merge.Type() {
			t.Errorf("finalizers %v: patch %s of type %s, want %s of type %s", before, got, p.Type(), want, client.Merge.Type())
		}
	}
}

// TestStatusPatchIsTheMergeFromPatch: the status patch built field by
// field says what controller-runtime's optimistic-lock merge patch of the
// same change says, for every field of the status set, changed and
// removed, from an empty status and from a full one.
func TestStatusPatchIsTheMergeFromPatch(t *testing.T) {
	at := func(s int64) *metav1.Time { tm := metav1.NewTime(time.Unix(s, 0)); return &tm }
	full := func(st *v1alpha1.TenantStatus) {
		*st = v1alpha1.TenantStatus{
			Phase: v1alpha1.PhaseReady, ObservedGeneration: 3,
			Conditions: []metav1.Condition{
				{Type: v1alpha1.ConditionReady, Status: metav1.ConditionTrue, ObservedGeneration: 3, Reason: v1alpha1.ReasonProvisioned, Message: "ok", LastTransitionTime: *at(1000)},
				{Type: v1alpha1.ConditionNamespacesReady, Status: metav1.ConditionTrue, ObservedGeneration: 3, Reason: v1alpha1.ReasonApplied, Message: "2 namespaces active", LastTransitionTime: *at(1000)},
			},
			Namespaces:     []v1alpha1.NamespaceStatus{{Name: "dr-a", Phase: v1alpha1.NamespaceActive, UID: "u1"}, {Name: "dr-b", Phase: v1alpha1.NamespaceActive, UID: "u2"}},
			NamespaceCount: 2, ProvisionedGeneration: 3, LastProvisionedTime: at(1000),
			AppliedHash: "sha256:aa", PrunedGeneration: 2, RulesHash: "sha256:bb",
			External: &v1alpha1.ExternalStatus{AcceptedGeneration: 3, RejectedGeneration: 2, RejectedTime: at(900), Deleted: true},
		}
	}
	edits := map[string]func(st *v1alpha1.TenantStatus){
		"phase":                   func(st *v1alpha1.TenantStatus) { st.Phase = v1alpha1.PhasePaused },
		"phase removed":           func(st *v1alpha1.TenantStatus) { st.Phase = "" },
		"observedGeneration":      func(st *v1alpha1.TenantStatus) { st.ObservedGeneration = 4 },
		"observedGeneration zero": func(st *v1alpha1.TenantStatus) { st.ObservedGeneration = 0 },
		"condition set": func(st *v1alpha1.TenantStatus) {
			meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: v1alpha1.ConditionReady, Status: metav1.ConditionFalse, Reason: v1alpha1.ReasonApplyFailed, Message: "no"})
		},
		"condition added": func(st *v1alpha1.TenantStatus) {
			meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: v1alpha1.ConditionAccessReady, Status: metav1.ConditionTrue, Reason: v1alpha1.ReasonApplied, Message: "role bindings applied"})
		},
		"conditions removed": func(st *v1alpha1.TenantStatus) { st.Conditions = nil },
		"namespace added": func(st *v1alpha1.TenantStatus) {
			st.Namespaces = append(st.Namespaces, v1alpha1.NamespaceStatus{Name: "dr-c", Phase: v1alpha1.NamespaceMissing, SelfService: true})
		},
		"namespaces empty": func(st *v1alpha1.TenantStatus) { st.Namespaces = []v1alpha1.NamespaceStatus{} },
		"namespaceCount":   func(st *v1alpha1.TenantStatus) { st.NamespaceCount = 3 },
		"provisioned":      func(st *v1alpha1.TenantStatus) { st.ProvisionedGeneration, st.LastProvisionedTime = 5, at(2000) },
		"time within the second": func(st *v1alpha1.TenantStatus) {
			if st.LastProvisionedTime != nil {
				tm := metav1.NewTime(st.LastProvisionedTime.Add(300 * time.Millisecond))
				st.LastProvisionedTime = &tm
			}
		},
		"time removed":        func(st *v1alpha1.TenantStatus) { st.LastProvisionedTime = nil },
		"appliedHash cleared": func(st *v1alpha1.TenantStatus) { st.AppliedHash = "" },
		"appliedHash":         func(st *v1alpha1.TenantStatus) { st.AppliedHash = "sha256:cc" },
		"prunedGeneration":    func(st *v1alpha1.TenantStatus) { st.PrunedGeneration = 3 },
		"rulesHash":           func(st *v1alpha1.TenantStatus) { st.RulesHash = "sha256:dd" },
		"rulesHash cleared":   func(st *v1alpha1.TenantStatus) { st.RulesHash = "" },
		"external removed":    func(st *v1alpha1.TenantStatus) { st.External = nil },
		"external empty":      func(st *v1alpha1.TenantStatus) { st.External = &v1alpha1.ExternalStatus{} },
		"external accepted":   func(st *v1alpha1.TenantStatus) { st.External = &v1alpha1.ExternalStatus{AcceptedGeneration: 6} },
		"external rejected": func(st *v1alpha1.TenantStatus) {
			st.External = &v1alpha1.ExternalStatus{AcceptedGeneration: 3, RejectedGeneration: 6, RejectedTime: at(3000)}
		},
		"everything": func(st *v1alpha1.TenantStatus) {
			st.Phase, st.ObservedGeneration, st.NamespaceCount, st.AppliedHash = v1alpha1.PhasePaused, 9, 1, ""
			st.Conditions = st.Conditions[:1]
			st.Namespaces = st.Namespaces[1:]
			st.External = nil
		},
	}
	for _, start := range []string{"empty", "full"} {
		for name, edit := range edits {
			tn := driftTenant()
			tn.ResourceVersion = "4711"
			if start == "full" {
				full(&tn.Status)
			}
			old := tn.DeepCopy()
			if start == "empty" {
				// From an empty status, to a full one edited.
				full(&tn.Status)
			}
			edit(&tn.Status)
			if equality.Semantic.DeepEqual(old.Status, tn.Status) {
				continue // writeStatus sends nothing
			}
			want, err := client.MergeFromWithOptions(old, client.MergeFromWithOptimisticLock{}).Data(tn)
			if err != nil {
				t.Fatal(err)
			}
			got, err := statusPatch(old, tn)
			if err != nil {
				t.Fatal(err)
			}
			w, g := decodeBoth(t, want, got)
			if st, ok := w["status"]; !ok || st == nil {
				w["status"] = map[string]any{} // MergeFrom leaves out a status unchanged in JSON
			}
			if !reflect.DeepEqual(w, g) {
				t.Errorf("%s from %s: patch %s, want %s", name, start, got, want)
			}
		}
	}
}

// decodeBoth decodes the wanted and the sent merge patch, failing the test
// when either is not a JSON object.
func decodeBoth(t *testing.T, want, got []byte) (w, g map[string]any) {
	t.Helper()
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("wanted patch %s: %v", want, err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("sent patch %s: %v", got, err)
	}
	return w, g
}
