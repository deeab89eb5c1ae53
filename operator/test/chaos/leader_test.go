package chaos

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// leaseName is the operator's default --leader-election-id.
const leaseName = "tenant-operator.tenancy.kubetenant.io"

// holder returns the Lease's holder, or "" when it cannot be read.
func (e *env) holder() string {
	var l coordinationv1.Lease
	if err := e.k8s.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: leaseName}, &l); err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// TestLeaderKilledDuringProvisioning: two replicas with leader election;
// the leader is SIGKILLed while Tenants provision (200; 1,000 with
// CHAOS_LONG). The standby takes over when the lease expires: every Tenant
// Ready, at most one repeated call per Tenant and no more than were in
// flight, no orphan namespace, no namespace adopted.
func TestLeaderKilledDuringProvisioning(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	n := scale(200, 1000)
	a := e.operator("replica-a", "", "--max-concurrent-reconciles="+strconv.Itoa(workers))
	if err := a.WaitReady(ctx, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "replica-a leading", 2*time.Minute, a.Leading)
	b := e.operator("replica-b", "", "--max-concurrent-reconciles="+strconv.Itoa(workers))
	if err := b.WaitReady(ctx, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	if b.Leading() {
		t.Fatal("replica-b leads too")
	}
	leader := e.holder()

	ns := names("failover", n)
	e.create(ns)
	waitFor(t, "a quarter of the Tenants Ready", 10*time.Minute, func() bool { return e.countReady(ns) >= n/4 })
	before := e.countReady(ns)
	killed := time.Now()
	a.Kill()
	waitFor(t, "another holder of the lease", 2*time.Minute, func() bool { h := e.holder(); return h != "" && h != leader })
	takeover := time.Since(killed)
	done := e.waitReady(ns, scale(10*time.Minute, 30*time.Minute))

	l := e.audit(ns)
	if !l.nothing() {
		t.Errorf("lost: %s", l)
	}
	if l.perKeys != n {
		t.Errorf("%d keys reached the provisioner, want %d (one per Tenant)", l.perKeys, n)
	}
	if l.repeats > workers {
		t.Errorf("%d repeated PUTs, want at most %d (the calls in flight at the kill)", l.repeats, workers)
	}
	if exits, k := a.Exits(); len(exits) != 1 || k != 1 {
		t.Errorf("replica-a exits %v (%d killed by the test), want the one kill", exits, k)
	}
	if exits, _ := b.Exits(); len(exits) != 0 {
		t.Errorf("replica-b exited: %v", exits)
	}
	report(t, figure{
		Fault:    "leader of two replicas SIGKILLed during provisioning",
		Injected: fmt.Sprintf("SIGKILL of the leader with %d of %d Tenants Ready; new leader after %s (lease 15 s)", before, n, takeover.Round(100*time.Millisecond)),
		Recovery: done.Sub(killed),
		Lost:     lostText(l),
		Repeats:  fmt.Sprintf("%d repeated PUTs (at most one per Tenant, same key)", l.repeats),
	})
}
