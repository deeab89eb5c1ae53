package tenant

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

func TestSelfServiceNamespacesAndAccess(t *testing.T) {
	tests := []struct {
		name       string
		selfSvc    bool
		status     []v1alpha1.NamespaceStatus
		wantNames  []string
		wantDelete []string // nil: no delete rule
	}{
		{name: "no self-service", status: []v1alpha1.NamespaceStatus{{Name: "acme-dev"}}},
		{name: "self-service, none yet", selfSvc: true},
		{name: "recorded ones, declared and foreign names skipped", selfSvc: true, status: []v1alpha1.NamespaceStatus{
			{Name: "acme-dev", SelfService: true}, // declared: never taken over
			{Name: "acme-x", SelfService: true},
			{Name: "other-y", SelfService: true}, // not the tenant's prefix
			{Name: "acme-prod"},
			{Name: "acme-z", SelfService: true},
		}, wantNames: []string{"acme-x", "acme-z"}, wantDelete: []string{"acme-x", "acme-z"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tn := acme(func(tn *v1alpha1.Tenant) {
				if tc.selfSvc {
					tn.Spec.SelfService = &v1alpha1.SelfService{MaxNamespaces: 3}
				}
				tn.Status.Namespaces = tc.status
			})
			if diff := cmp.Diff(tc.wantNames, SelfServiceNamespaces(tn)); diff != "" {
				t.Errorf("SelfServiceNamespaces (-want +got):\n%s", diff)
			}
			var desired []string
			for _, d := range Desired(tn) {
				if d.SelfService {
					desired = append(desired, d.Name)
				}
			}
			if diff := cmp.Diff(tc.wantNames, desired); diff != "" {
				t.Errorf("self-service namespaces in Desired (-want +got):\n%s", diff)
			}
			role, binding := SelfServiceAccess(tn)
			if !tc.selfSvc {
				if role != nil || binding != nil {
					t.Fatal("access granted without spec.selfService")
				}
				return
			}
			var gotDelete []string
			deleteRules := 0
			for _, r := range role.Rules {
				if len(r.Verbs) == 1 && r.Verbs[0] == "delete" {
					deleteRules++
					gotDelete = r.ResourceNames
				}
			}
			if diff := cmp.Diff(tc.wantDelete, gotDelete); diff != "" {
				t.Errorf("delete resourceNames (-want +got):\n%s", diff)
			}
			if tc.wantDelete == nil && deleteRules != 0 {
				t.Errorf("a delete rule without names grants every namespace")
			}
			if len(binding.Subjects) != len(tn.Spec.Owners) {
				t.Errorf("%d subjects, want one per owner (%d)", len(binding.Subjects), len(tn.Spec.Owners))
			}
		})
	}
}

func TestBindingsNameTheTenant(t *testing.T) {
	tn := acme(nil)
	for _, b := range Bindings(tn) {
		if *b.Spec.ParamRef.Name != tn.Name {
			t.Errorf("binding %s: paramRef %s, want the Tenant %s", *b.Name, *b.Spec.ParamRef.Name, tn.Name)
		}
		if b.Spec.MatchResources == nil {
			t.Fatalf("binding %s selects nothing", *b.Name)
		}
	}
}
