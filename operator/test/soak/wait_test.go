package soak_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/test/controlplane"
	"github.com/kubetenant/kubetenant/operator/test/controlplane/controlplanetest"
	"github.com/kubetenant/kubetenant/operator/test/soak"
)

// TestWaitReadyWatches: against a real API server and no operator, WaitReady
// waits until every Tenant of the driver is Ready at its generation, as
// its status says; a Tenant Ready at an older generation does not count.
func TestWaitReadyWatches(t *testing.T) {
	cp := controlplanetest.Start(t, controlplane.Options{CRDDirectoryPaths: []string{filepath.Join("..", "..", "config", "crd", "bases")}})
	c, err := soak.NewClient(cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	d := soak.NewDriver(c, "wait", 3, t.Output())
	if err := d.Create(ctx, 2); err != nil {
		t.Fatal(err)
	}
	err = d.WaitReady(ctx, time.Second)
	if err == nil || !strings.Contains(err.Error(), "(0 are)") {
		t.Fatalf("WaitReady with no Tenant Ready = %v; want a timeout saying 0 are", err)
	}
	ready := func(name string, generation int64) {
		t.Helper()
		var tn v1alpha1.Tenant
		if err := c.Get(ctx, client.ObjectKey{Name: name}, &tn); err != nil {
			t.Fatal(err)
		}
		tn.Status.Phase = v1alpha1.PhaseReady
		tn.Status.ObservedGeneration = generation
		tn.Status.Conditions = []metav1.Condition{{Type: v1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: "Test", Message: "set by the test", LastTransitionTime: metav1.Now(), ObservedGeneration: generation}}
		if err := c.Status().Update(ctx, &tn); err != nil {
			t.Fatal(err)
		}
	}
	ready(d.Names[0], 1)
	ready(d.Names[1], 1)
	ready(d.Names[2], 0) // Ready, but for an older generation
	err = d.WaitReady(ctx, time.Second)
	if err == nil || !strings.Contains(err.Error(), "(2 are)") {
		t.Fatalf("WaitReady with one Tenant behind = %v; want a timeout saying 2 are", err)
	}
	done := make(chan error, 1)
	go func() { done <- d.WaitReady(ctx, time.Minute) }()
	ready(d.Names[2], 1)
	if err := <-done; err != nil {
		t.Fatalf("WaitReady once all are Ready = %v", err)
	}
}
