package controlplane_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubetenant/kubetenant/operator/test/controlplane"
	"github.com/kubetenant/kubetenant/operator/test/controlplane/controlplanetest"
)

// TestRestartAPIServer: killed and started again, kube-apiserver serves the
// same objects (etcd kept them) to the same client configuration; while it
// is stopped, requests fail.
func TestRestartAPIServer(t *testing.T) {
	cp := controlplanetest.Start(t, controlplane.Options{})
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	cms := cs.CoreV1().ConfigMaps("default")
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, kill := range []bool{true, false} {
		if err := cp.StopAPIServer(kill); err != nil {
			t.Fatalf("stop %d: %v", i, err)
		}
		if err := cp.StopAPIServer(kill); err == nil {
			t.Errorf("stop %d: stopping a stopped kube-apiserver succeeded", i)
		}
		if _, err := cms.Get(ctx, "kept", metav1.GetOptions{}); err == nil {
			t.Fatalf("stop %d: a GET succeeded with kube-apiserver stopped", i)
		}
		if err := cp.StartAPIServer(ctx); err != nil {
			t.Fatalf("start %d: %v", i, err)
		}
		cm, err := cms.Get(ctx, "kept", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("after restart %d: %v", i, err)
		}
		if cm.Data["k"] != "v" {
			t.Errorf("after restart %d: data %v, want k=v", i, cm.Data)
		}
	}
}
