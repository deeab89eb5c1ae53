package chaos

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// workers is the operator's --max-concurrent-reconciles: the most external
// calls that can be in flight at once.
const workers = 4

// TestKillBetweenPutAndStatusWrite: the operator is SIGKILLed while its
// PUTs have reached the provisioner and their answers have not reached the
// operator, so no status write can record them. Restarted, it repeats each
// of those PUTs exactly once, with the same idempotency key, and every
// other Tenant's PUT exactly once; a new generation afterwards is a new key.
func TestKillBetweenPutAndStatusWrite(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	op := e.operator("operator", "", "--provisioner-timeout=5m", "--max-concurrent-reconciles="+strconv.Itoa(workers))
	if err := op.WaitReady(ctx, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	e.prov.Hold()
	ns := names("kill", 12)
	e.create(ns)
	waitFor(t, "every worker's PUT held by the provisioner", 3*time.Minute, func() bool { return len(e.prov.Waiting()) == workers })
	inFlight := e.prov.Waiting()
	slices.Sort(inFlight)
	for _, n := range inFlight {
		if tn := e.tenants()[n]; tn.Status.External != nil && tn.Status.External.AcceptedGeneration != 0 {
			t.Fatalf("%s: the accepted PUT is recorded before the answer", n)
		}
	}

	killed := time.Now()
	op.Kill()
	e.prov.Release()
	done := e.waitReady(ns, 3*time.Minute)

	perKey, keys := e.prov.PerKey(http.MethodPut)
	tenants := e.tenants()
	for _, n := range ns {
		tn := tenants[n]
		want := 1
		if slices.Contains(inFlight, n) {
			want = 2 // the one repeat of the call in flight at the kill
		}
		key := strconv.Quote(string(tn.UID) + "/1")
		if diff := cmp.Diff([]string{key}, keys[n]); diff != "" {
			t.Errorf("%s: keys (-want +got):\n%s", n, diff)
		}
		if perKey[key] != want {
			t.Errorf("%s: %d PUTs with key %s, want %d", n, perKey[key], key, want)
		}
		if tn.Status.External == nil || tn.Status.External.AcceptedGeneration != 1 {
			t.Errorf("%s: status.external %+v, want acceptedGeneration 1", n, tn.Status.External)
		}
	}
	if exits, k := op.Exits(); len(exits) != 1 || k != 1 {
		t.Errorf("operator exits %v (%d killed by the test), want the one kill", exits, k)
	}
	l := e.audit(ns)
	if !l.nothing() {
		t.Errorf("lost: %s", l)
	}
	if l.repeats != workers {
		t.Errorf("%d repeated PUTs, want %d (one per call in flight)", l.repeats, workers)
	}

	// A new generation of a Tenant whose call was repeated is a new key,
	// called once.
	n := inFlight[0]
	var tn v1alpha1.Tenant
	if err := e.k8s.Get(ctx, client.ObjectKey{Name: n}, &tn); err != nil {
		t.Fatal(err)
	}
	tn.Spec.Namespaces = append(tn.Spec.Namespaces, v1alpha1.Namespace{Name: "extra"})
	if err := e.k8s.Update(ctx, &tn); err != nil {
		t.Fatal(err)
	}
	e.waitReady([]string{n}, 2*time.Minute)
	perKey, keys = e.prov.PerKey(http.MethodPut)
	want := []string{strconv.Quote(string(tn.UID) + "/1"), strconv.Quote(string(tn.UID) + "/2")}
	if diff := cmp.Diff(want, keys[n]); diff != "" {
		t.Errorf("%s after a spec change: keys (-want +got):\n%s", n, diff)
	}
	if c := perKey[want[1]]; c != 1 {
		t.Errorf("%s: %d PUTs of generation 2, want 1", n, c)
	}
	if l := e.audit(ns); !l.nothing() {
		t.Errorf("lost after the spec change: %s", l)
	}
	report(t, figure{
		Fault:    "operator SIGKILLed between the provisioner's PUT and the status write",
		Injected: strconv.Itoa(workers) + " PUTs held at the provisioner, then SIGKILL; restarted after " + RestartDelay.String(),
		Recovery: done.Sub(killed),
		Lost:     lostText(l),
		Repeats:  strconv.Itoa(l.repeats) + " repeated PUTs, each once with the same key (12 Tenants)",
	})
}
