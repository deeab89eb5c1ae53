package chaos

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"
)

// TestAPIServerRestartedWhileProvisioning: kube-apiserver is SIGKILLed and
// started again (etcd keeps running) while 200 Tenants provision. Every
// Tenant becomes Ready, every Tenant's key reached the provisioner, no call
// was repeated more than once (and no more than the calls in flight), no
// namespace was orphaned.
func TestAPIServerRestartedWhileProvisioning(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	op := e.operator("operator", "", "--max-concurrent-reconciles="+strconv.Itoa(workers))
	if err := op.WaitReady(ctx, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	n := 200
	ns := names("restart", n)
	e.create(ns)
	waitFor(t, "a quarter of the Tenants Ready", 5*time.Minute, func() bool { return e.countReady(ns) >= n/4 })
	before := e.countReady(ns)

	killed := time.Now()
	if err := e.cp.StopAPIServer(true); err != nil {
		t.Fatal(err)
	}
	if err := e.cp.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	down := time.Since(killed)
	done := e.waitReady(ns, 10*time.Minute)

	l := e.audit(ns)
	if !l.nothing() {
		t.Errorf("lost: %s", l)
	}
	if l.perKeys != n {
		t.Errorf("%d keys reached the provisioner, want %d (one per Tenant)", l.perKeys, n)
	}
	if l.repeats > workers {
		t.Errorf("%d repeated PUTs, want at most %d (the calls in flight)", l.repeats, workers)
	}
	exits, _ := op.Exits()
	if len(exits) > 1 {
		t.Errorf("the operator exited %d times (%v), want at most once", len(exits), exits)
	}
	report(t, figure{
		Fault:    "kube-apiserver restarted while Tenants provision",
		Injected: fmt.Sprintf("SIGKILL of kube-apiserver with %d of %d Tenants Ready, started again (down %s)", before, n, down.Round(100*time.Millisecond)),
		Recovery: done.Sub(killed),
		Lost:     lostText(l),
		Repeats:  fmt.Sprintf("%d repeated PUTs (at most one per Tenant, same key); operator exits %d", l.repeats, len(exits)),
	})
}
