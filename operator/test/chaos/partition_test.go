package chaos

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// recoveryBound is the bound on how soon after the API server is
// reachable again the conditions must be correct.
const recoveryBound = 30 * time.Second

// TestAPIServerUnreachable: the operator (leader election on, as the chart
// deploys it) is cut off the API server for 20 s (60 s with CHAOS_LONG) by
// a proxy that drops every connection and holds new ones silent, while
// users keep creating and changing Tenants. The operator exits at most
// once (leader election lost) and does not crash-loop; its /readyz and log
// say it cannot reach the API server; within 30 s of the API server being
// reachable again every Tenant is Ready at its generation.
func TestAPIServerUnreachable(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	partition := scale(20*time.Second, 60*time.Second)
	kubeconfig, proxy := e.proxiedKubeconfig()
	op := e.operator("operator", kubeconfig)
	if err := op.WaitReady(ctx, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	before := names("part", 20)
	e.create(before)
	e.waitReady(before, 3*time.Minute)

	cut := time.Now()
	proxy.Cut()
	// /readyz, asked every second as a kubelet probe would (1 s timeout).
	var mu sync.Mutex
	probes := map[string]int{}
	var notReady string
	stopProbe := make(chan struct{})
	probed := make(chan struct{})
	go func() {
		defer close(probed)
		for {
			select {
			case <-stopProbe:
				return
			case <-time.After(time.Second):
			}
			code, body := op.Readyz(ctx, time.Second)
			mu.Lock()
			if code == http.StatusOK {
				probes["ok"]++
			} else {
				probes["not ok"]++
				if strings.Contains(body, "[-]apiserver failed") {
					probes["apiserver failed"]++
					notReady = fmt.Sprintf("%d %s", code, body)
				}
			}
			mu.Unlock()
		}
	}()
	// Users go on: new Tenants, and changed ones.
	during := names("part-new", 10)
	e.create(during)
	for _, n := range before[:5] {
		var tn v1alpha1.Tenant
		if err := e.k8s.Get(ctx, client.ObjectKey{Name: n}, &tn); err != nil {
			t.Fatal(err)
		}
		tn.Spec.Namespaces = append(tn.Spec.Namespaces, v1alpha1.Namespace{Name: "extra"})
		if err := e.k8s.Update(ctx, &tn); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Until(cut.Add(partition)))
	close(stopProbe)
	<-probed
	exitsDuring, _ := op.Exits()
	healed := time.Now()
	proxy.Heal()

	all := append(append([]string(nil), before...), during...)
	done := e.waitReady(all, 3*time.Minute)
	recovery := done.Sub(healed)
	if recovery > recoveryBound {
		t.Errorf("conditions correct %s after the API server came back, want within %s", recovery.Round(100*time.Millisecond), recoveryBound)
	}
	l := e.audit(all)
	if !l.nothing() {
		t.Errorf("lost: %s", l)
	}
	exits, _ := op.Exits()
	if len(exits) > 1 {
		t.Errorf("the operator exited %d times (%v), want at most once: a crash loop", len(exits), exits)
	}
	if len(exits) != len(exitsDuring) {
		t.Errorf("the operator exited after the partition ended: %v", exits[len(exitsDuring):])
	}
	mu.Lock()
	t.Logf("/readyz during the partition: %v; not ready: %s", probes, notReady)
	if probes["apiserver failed"] == 0 {
		t.Errorf("/readyz never named the failing apiserver check during the partition (%v), want it to say the API server is unreachable", probes)
	}
	if probes["ok"] > 0 {
		t.Errorf("/readyz answered ok %d times during the partition", probes["ok"])
	}
	mu.Unlock()
	// The log says what happened: the lease could not be read or renewed,
	// the leadership was lost, the restarted process could not reach the
	// API server either.
	log := op.Log()
	t.Logf("the operator's error messages: %q", errorMessages(log))
	for _, want := range []string{"leader election lost", `"msg":"error retrieving resource lock"`, `"msg":"Error retrieving lease lock"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the operator's log does not say %q", want)
		}
	}
	report(t, figure{
		Fault:    "kube-apiserver unreachable from the operator",
		Injected: fmt.Sprintf("proxy drops connections and holds new ones for %s; 10 Tenants created and 5 changed meanwhile", partition),
		Recovery: recovery,
		Lost:     lostText(l),
		Repeats:  fmt.Sprintf("operator exits %d (leader election lost); /readyz not ok %d of %d probes", len(exits), probes["not ok"], probes["ok"]+probes["not ok"]),
	})
}

// errorMessages returns the distinct messages of the log's error lines.
func errorMessages(log string) []string {
	seen := map[string]bool{}
	var out []string
	for _, line := range strings.Split(log, "\n") {
		if !strings.Contains(line, `"level":"error"`) {
			continue
		}
		_, rest, ok := strings.Cut(line, `"msg":"`)
		if !ok {
			continue
		}
		msg, _, _ := strings.Cut(rest, `"`)
		if !seen[msg] {
			seen[msg] = true
			out = append(out, msg)
		}
	}
	return out
}
