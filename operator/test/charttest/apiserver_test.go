package charttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubetenant/kubetenant/operator/test/controlplane"
	"github.com/kubetenant/kubetenant/operator/test/controlplane/controlplanetest"
)

// Generous bounds for a busy two-core machine; polls end as soon as the
// condition holds.
const (
	readyTimeout  = 3 * time.Minute
	deleteTimeout = 3 * time.Minute
	pollInterval  = 250 * time.Millisecond
)

var tenantGVR = schema.GroupVersionResource{Group: "tenancy.kubetenant.io", Version: "v1alpha1", Resource: "tenants"}

// TestChartAPIServer validates the charts against a real kube-apiserver:
// first every rendered scenario with server-side dry-run, then the RBAC
// proof, which runs the real operator with exactly the chart's permissions.
func TestChartAPIServer(t *testing.T) {
	cp := controlplanetest.Start(t, controlplane.Options{ControllerManager: true})
	k := kubectl{t: t, bin: cp.Kubectl(), kubeconfig: cp.Kubeconfig}
	k.run("create", "namespace", operatorNS)
	k.run("create", "namespace", pinbotNS)

	t.Run("dry-run", func(t *testing.T) {
		for _, c := range chartCases(t) {
			if !c.serverDryRun {
				continue
			}
			t.Run(c.String(), func(t *testing.T) {
				out, _ := c.render(t)
				path := filepath.Join(t.TempDir(), "rendered.yaml")
				if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				res := k.with(t).run("apply", "--server-side", "--dry-run=server", "--field-manager=charttest", "-f", path)
				// kubectl names every object the API server accepted.
				objs, err := decode(out)
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range objs {
					kind := strings.ToLower(o.GetKind())
					if g := o.GroupVersionKind().Group; g != "" {
						kind += "." + g
					}
					want := fmt.Sprintf("%s/%s serverside-applied (server dry run)", kind, o.GetName())
					if !strings.Contains(res, want) {
						t.Errorf("kubectl output lacks %q:\n%s", want, res)
					}
				}
			})
		}
	})

	t.Run("rbac", func(t *testing.T) { testRBACProof(t, cp, k) })
}

// testRBACProof installs the chart's ServiceAccount and RBAC (nothing else
// grants the operator anything), runs bin/tenant-operator with the
// Deployment's own arguments as that ServiceAccount, and provisions and
// deletes a Tenant. The table's other cases remove one rule and show the
// proof fails: a test of the test.
func testRBACProof(t *testing.T, cp *controlplane.ControlPlane, k kubectl) {
	operator := operatorBinary(t)

	// The CRD comes from the chart, installed for real, once.
	_, objs := release{Chart: operatorChart, Name: "crd", Namespace: operatorNS}.render(t)
	k.applyObjects(only(objs, "CustomResourceDefinition"))
	k.run("wait", "--for=condition=Established", "--timeout=60s", "crd/tenants.tenancy.kubetenant.io")

	tests := []struct {
		name string
		// drop removes permissions from the chart's values (nil: the chart as it is).
		drop    func(v map[string]any) error
		wantErr string
		// unenforced: the chart without its admission policies
		// (admissionPolicies.create: false); first, before any case
		// installs them (issue 38).
		unenforced bool
	}{
		{name: "the chart's rules without its admission policies", drop: setValue("admissionPolicies", "create", false), unenforced: true},
		{name: "the chart's rules suffice"},
		{name: "without the namespaces rule", drop: dropRule("rbac", "rules", "", "namespaces"), wantErr: "forbidden"},
		{name: "without the leader-election leases", drop: dropRule("leaderElection", "rules", "coordination.k8s.io", "leases"), wantErr: "forbidden"},
		{name: "without the tenants/status rule", drop: dropRule("rbac", "rules", "tenancy.kubetenant.io", "tenants/status"), wantErr: "forbidden"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := k.with(t)
			ns := fmt.Sprintf("proof-%d", i)
			name := fmt.Sprintf("rbac%d", i)
			k.run("create", "namespace", ns)
			r := release{Chart: operatorChart, Name: name, Namespace: ns}
			if tt.drop != nil {
				r.Values = []string{writeValues(t, tt.drop)}
			}
			_, objs := r.render(t)
			k.applyObjects(only(objs, "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding",
				"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"))
			sa := name + "-tenant-operator"
			d := index(objs)["Deployment/"+sa]
			if d == nil {
				t.Fatalf("no Deployment %s rendered", sa)
			}

			if objs := only(objs, "ValidatingAdmissionPolicy"); tt.unenforced && len(objs) > 0 {
				t.Fatalf("admissionPolicies.create: false rendered %d policies", len(objs))
			}
			err := provisionAndDelete(t, cp, operator, d, ns, sa, fmt.Sprintf("proof%d", i), tt.unenforced)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("RBAC proof failed with the chart's own rules: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Fatalf("RBAC proof passed with a rule removed; it must catch a missing rule")
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Fatalf("RBAC proof error = %v, want one containing %q", err, tt.wantErr)
			case err != nil:
				t.Logf("caught, as it must be: %v", err)
			}
		})
	}
}

// provisionAndDelete runs the operator as system:serviceaccount:ns:sa with
// the args of the chart's Deployment d, creates a Tenant, waits for it to be
// Ready with its namespaces, deletes it, waits for it and its namespaces to
// be gone, and fails if the operator ever logged "forbidden". With
// unenforced (no admission policies installed), Ready must come with
// AdmissionEnforced False and an AdmissionNotEnforced event.
func provisionAndDelete(t *testing.T, cp *controlplane.ControlPlane, operator string, d *unstructured.Unstructured, ns, sa, tenant string, unenforced bool) error {
	t.Helper()
	kubeconfig := impersonating(t, cp.Kubeconfig, fmt.Sprintf("system:serviceaccount:%s:%s", ns, sa))
	args := []string{"--kubeconfig=" + kubeconfig}
	for _, a := range firstContainer(t, d)["args"].([]any) {
		a := a.(string)
		switch {
		// Free ports: tests run side by side with other control planes.
		case strings.HasPrefix(a, "--metrics-bind-address="):
			a = "--metrics-bind-address=127.0.0.1:0"
		case strings.HasPrefix(a, "--health-probe-bind-address="):
			a = "--health-probe-bind-address=127.0.0.1:0"
		}
		args = append(args, a)
	}
	logs := startOperator(t, operator, args, []string{"POD_NAMESPACE=" + ns})

	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout+deleteTimeout)
	defer cancel()
	dyn := dynamic.NewForConfigOrDie(cp.Config)
	core := kubernetes.NewForConfigOrDie(cp.Config)
	tn := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "tenancy.kubetenant.io/v1alpha1",
		"kind":       "Tenant",
		"metadata":   map[string]any{"name": tenant},
		"spec": map[string]any{
			"owners":     []any{map[string]any{"kind": "User", "name": "alice"}},
			"namespaces": []any{map[string]any{"name": "dev"}, map[string]any{"name": "prod"}},
			"quota":      map[string]any{"hard": map[string]any{"pods": "10"}},
			"limits":     map[string]any{"default": map[string]any{"memory": "128Mi"}},
			"additionalRoleBindings": []any{map[string]any{"clusterRole": "view", "subjects": []any{
				map[string]any{"kind": "Group", "name": "auditors", "apiGroup": "rbac.authorization.k8s.io"}}}},
			// The owners' self-service access: a ClusterRole and binding
			// the operator must be allowed to write (ADR 0271).
			"selfService": map[string]any{"maxNamespaces": int64(1)},
		},
	}}
	if _, err := dyn.Resource(tenantGVR).Create(ctx, tn, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating Tenant %s: %v", tenant, err)
	}
	// Whatever happens, leave no Tenant behind for the next case.
	defer cleanupTenant(t, dyn, tenant)

	namespaces := []string{tenant + "-dev", tenant + "-prod"}
	err := poll(ctx, readyTimeout, logs, func(ctx context.Context) (bool, error) {
		got, err := dyn.Resource(tenantGVR).Get(ctx, tenant, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		phase, _, _ := unstructured.NestedString(got.Object, "status", "phase")
		if phase != "Ready" {
			return false, nil
		}
		for _, n := range namespaces {
			if _, err := core.CoreV1().Namespaces().Get(ctx, n, metav1.GetOptions{}); err != nil {
				return false, fmt.Errorf("tenant Ready but namespace %s: %w", n, err)
			}
			if _, err := core.CoreV1().ResourceQuotas(n).Get(ctx, "tenant-quota", metav1.GetOptions{}); err != nil {
				return false, fmt.Errorf("tenant Ready but quota in %s: %w", n, err)
			}
		}
		if unenforced {
			return admissionNotEnforced(ctx, core, got, tenant)
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for Tenant %s to be Ready: %w", tenant, err)
	}

	if err := dyn.Resource(tenantGVR).Delete(ctx, tenant, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("deleting Tenant %s: %w", tenant, err)
	}
	err = poll(ctx, deleteTimeout, logs, func(ctx context.Context) (bool, error) {
		if _, err := dyn.Resource(tenantGVR).Get(ctx, tenant, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return false, nil
		}
		for _, n := range namespaces {
			if _, err := core.CoreV1().Namespaces().Get(ctx, n, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for Tenant %s and its namespaces to be deleted: %w", tenant, err)
	}
	// Late writes (events after Ready) fail asynchronously: stop the operator
	// so that every log line is in before the last look.
	logs.stop()
	if line := logs.forbidden(); line != "" {
		return fmt.Errorf("the operator logged forbidden: %s", line)
	}
	return nil
}

// poll calls cond until it returns true, the operator logs "forbidden" or
// exits, or timeout passes.
func poll(ctx context.Context, timeout time.Duration, logs *operatorLogs, cond func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		if line := logs.forbidden(); line != "" {
			return fmt.Errorf("the operator logged forbidden: %s", line)
		}
		if err := logs.exited(); err != nil {
			return fmt.Errorf("the operator exited: %w; its log ends:\n%s", err, logs.tail(20))
		}
		ok, err := cond(ctx)
		if ok {
			return nil
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last error: %v); operator log ends:\n%s", ctx.Err(), last, logs.tail(20))
		case <-time.After(pollInterval):
		}
	}
}

// admissionNotEnforced reports whether the Tenant says that
// spec.selfService is not enforced because its policy is not installed,
// in its AdmissionEnforced condition and an AdmissionNotEnforced event.
func admissionNotEnforced(ctx context.Context, core kubernetes.Interface, got *unstructured.Unstructured, tenant string) (bool, error) {
	conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
	const want = "spec.selfService not enforced: the chart's ValidatingAdmissionPolicies are not installed (kubetenant.io-self-service, kubetenant.io-tenant-rules not found; chart value admissionPolicies.create: false?)"
	found := false
	for _, c := range conds {
		c, _ := c.(map[string]any)
		if c["type"] == "AdmissionEnforced" {
			if c["status"] != "False" || c["reason"] != "PoliciesNotInstalled" || !strings.Contains(fmt.Sprint(c["message"]), want) {
				return false, fmt.Errorf("condition AdmissionEnforced is %v, want False, PoliciesNotInstalled, %q", c, want)
			}
			found = true
		}
	}
	if !found {
		return false, fmt.Errorf("tenant Ready without the condition AdmissionEnforced: %v", conds)
	}
	evs, err := core.EventsV1().Events("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	for _, e := range evs.Items {
		if e.Regarding.Name == tenant && e.Reason == "AdmissionNotEnforced" && strings.Contains(e.Note, want) {
			return true, nil
		}
	}
	return false, fmt.Errorf("no AdmissionNotEnforced event for tenant %s", tenant)
}

func cleanupTenant(t *testing.T, dyn dynamic.Interface, name string) {
	t.Helper()
	ctx := context.Background()
	obj, err := dyn.Resource(tenantGVR).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return
	}
	if err != nil {
		t.Errorf("cleaning up Tenant %s: %v", name, err)
		return
	}
	// The operator of a failed case may not be able to remove its
	// finalizer; remove it as the administrator.
	if len(obj.GetFinalizers()) > 0 {
		obj.SetFinalizers(nil)
		if _, err := dyn.Resource(tenantGVR).Update(ctx, obj, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("removing the finalizers of Tenant %s: %v", name, err)
		}
	}
	if err := dyn.Resource(tenantGVR).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("deleting Tenant %s: %v", name, err)
	}
}

// dropRule returns a values edit that removes, from the rules list at
// top.list of the chart's values, every rule granting resource in group.
func dropRule(top, list, group, resource string) func(map[string]any) error {
	return func(v map[string]any) error {
		m, ok := v[top].(map[string]any)
		if !ok {
			return fmt.Errorf("values have no %s", top)
		}
		rules, _ := m[list].([]any)
		var kept []any
		for _, r := range rules {
			r := r.(map[string]any)
			if has(r["apiGroups"], group) && has(r["resources"], resource) {
				continue
			}
			kept = append(kept, r)
		}
		if len(kept) == len(rules) {
			return fmt.Errorf("no rule in %s.%s grants %s in group %q", top, list, resource, group)
		}
		if kept == nil {
			kept = []any{}
		}
		m[list] = kept
		return nil
	}
}

// setValue returns a values edit that sets top.key to v.
func setValue(top, key string, v any) func(map[string]any) error {
	return func(values map[string]any) error {
		m, ok := values[top].(map[string]any)
		if !ok {
			return fmt.Errorf("values have no %s", top)
		}
		if _, ok := m[key]; !ok {
			return fmt.Errorf("values have no %s.%s", top, key)
		}
		m[key] = v
		return nil
	}
}

// writeValues writes the chart's values.yaml, edited by edit, to a file and
// returns its path.
func writeValues(t *testing.T, edit func(map[string]any) error) string {
	t.Helper()
	v := readValues(t, operatorChart)
	if err := edit(v); err != nil {
		t.Fatal(err)
	}
	b, err := yamlMarshal(v)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// impersonating writes a copy of the admin kubeconfig whose users
// impersonate user: the API server then authorizes every request as that
// user (for a ServiceAccount user, with its groups), exactly as the pod's
// own token would be.
func impersonating(t *testing.T, admin, user string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(admin)
	if err != nil {
		t.Fatalf("loading %s: %v", admin, err)
	}
	for _, a := range cfg.AuthInfos {
		a.Impersonate = user
	}
	path := filepath.Join(t.TempDir(), "operator.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatalf("writing %s: %v", path, err)
	}
	return path
}

// operatorBinary is $TENANT_OPERATOR, or ./cmd/tenant-operator built now.
func operatorBinary(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("TENANT_OPERATOR"); b != "" {
		return b
	}
	out := filepath.Join(t.TempDir(), "tenant-operator")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/tenant-operator")
	cmd.Dir = filepath.Join(repoRoot(t), "operator")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building tenant-operator: %v\n%s", err, b)
	}
	return out
}

// operatorLogs collects the output of a running operator.
type operatorLogs struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	once sync.Once
}

func (l *operatorLogs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

var forbiddenRE = regexp.MustCompile(`(?i)forbidden`)

// forbidden returns the first log line saying "forbidden", without its
// stack trace, or "".
func (l *operatorLogs) forbidden() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range strings.Split(l.buf.String(), "\n") {
		if forbiddenRE.MatchString(line) {
			line, _, _ = strings.Cut(line, `,"stacktrace":`)
			return line
		}
	}
	return ""
}

func (l *operatorLogs) tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := strings.Split(strings.TrimRight(l.buf.String(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// exited returns why the operator exited, or nil while it runs.
func (l *operatorLogs) exited() error {
	select {
	case <-l.done:
		if l.err == nil {
			return errors.New("exit status 0")
		}
		return l.err
	default:
		return nil
	}
}

// stop sends SIGTERM and waits for the operator to exit (SIGKILL after 30s).
func (l *operatorLogs) stop() {
	l.once.Do(func() {
		_ = l.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-l.done:
		case <-time.After(30 * time.Second):
			_ = l.cmd.Process.Kill()
			<-l.done
		}
	})
}

// startOperator starts the operator binary and stops it when the test ends.
func startOperator(t *testing.T, bin string, args, env []string) *operatorLogs {
	t.Helper()
	l := &operatorLogs{done: make(chan struct{})}
	l.cmd = exec.Command(bin, args...)
	l.cmd.Env = append(os.Environ(), env...)
	l.cmd.Stdout = l
	l.cmd.Stderr = l
	if err := l.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	go func() {
		l.err = l.cmd.Wait()
		close(l.done)
	}()
	t.Cleanup(func() {
		l.stop()
		if t.Failed() {
			t.Logf("operator log ends:\n%s", l.tail(40))
		}
	})
	return l
}

// kubectl runs the control plane's kubectl as the administrator.
type kubectl struct {
	t          testing.TB
	bin        string
	kubeconfig string
}

// with returns k reporting to t (a subtest).
func (k kubectl) with(t testing.TB) kubectl {
	k.t = t
	return k
}

func (k kubectl) run(args ...string) string {
	k.t.Helper()
	cmd := exec.Command(k.bin, append([]string{"--kubeconfig", k.kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		k.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// applyObjects server-side applies objs for real.
func (k kubectl) applyObjects(objs []*unstructured.Unstructured) {
	k.t.Helper()
	path := filepath.Join(k.t.TempDir(), "objects.yaml")
	if err := os.WriteFile(path, []byte(encode(k.t, objs)), 0o644); err != nil {
		k.t.Fatal(err)
	}
	k.run("apply", "--server-side", "--force-conflicts", "--field-manager=charttest", "-f", path)
}
