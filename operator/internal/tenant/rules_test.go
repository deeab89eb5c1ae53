package tenant

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

func TestResolveImage(t *testing.T) {
	for image, want := range map[string]string{
		"nginx":                          "docker.io/library/nginx",
		"nginx:1.27":                     "docker.io/library/nginx:1.27",
		"acme/app":                       "docker.io/acme/app",
		"docker.io/busybox":              "docker.io/library/busybox",
		"docker.io/acme/app":             "docker.io/acme/app",
		"ghcr.io/acme/app:1":             "ghcr.io/acme/app:1",
		"localhost/app":                  "localhost/app",
		"registry:5000/app":              "registry:5000/app",
		"registry.k8s.io/pause@sha256:0": "registry.k8s.io/pause@sha256:0",
	} {
		if got := ResolveImage(image); got != want {
			t.Errorf("ResolveImage(%q) = %q, want %q", image, got, want)
		}
	}
}

func TestViolations(t *testing.T) {
	all := &v1alpha1.Rules{
		StorageClasses:  &v1alpha1.AllowList{Allowed: []string{"standard"}},
		IngressClasses:  &v1alpha1.AllowList{Allowed: []string{"nginx"}},
		Registries:      &v1alpha1.RegistryList{Allowed: []string{"ghcr.io/acme/"}},
		ServiceTypes:    &v1alpha1.AllowList{Allowed: []string{"ClusterIP"}},
		PriorityClasses: &v1alpha1.AllowList{Allowed: []string{"tenant-default"}},
	}
	om := func(name string, annotations map[string]string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: "acme-a", Name: name, Annotations: annotations}
	}
	spec := func(images ...string) corev1.PodSpec {
		s := corev1.PodSpec{}
		for _, i := range images {
			s.Containers = append(s.Containers, corev1.Container{Name: "c", Image: i})
		}
		return s
	}
	template := func(s corev1.PodSpec) corev1.PodTemplateSpec { return corev1.PodTemplateSpec{Spec: s} }
	str := func(s string) *string { return &s }
	v := func(kind, name, rule, value string) Violation {
		return Violation{Namespace: "acme-a", Kind: kind, Name: name, Rule: rule, Value: value}
	}
	tests := []struct {
		name  string
		rules *v1alpha1.Rules
		obj   any
		want  []Violation
	}{
		{"no rules", nil, &corev1.Pod{ObjectMeta: om("p", nil), Spec: spec("nginx")}, nil},
		{"pod allowed", all, &corev1.Pod{ObjectMeta: om("p", nil), Spec: spec("ghcr.io/acme/app")}, nil},
		{"pod images, init and ephemeral", all, &corev1.Pod{ObjectMeta: om("p", nil), Spec: func() corev1.PodSpec {
			s := spec("ghcr.io/acme/app", "nginx")
			s.InitContainers = []corev1.Container{{Image: "quay.io/x/init"}}
			s.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Image: "ghcr.io/acme-evil/dbg"}}}
			s.PriorityClassName = "high"
			return s
		}()}, []Violation{
			v(KindPod, "p", RuleRegistries, "docker.io/library/nginx"),
			v(KindPod, "p", RuleRegistries, "quay.io/x/init"),
			v(KindPod, "p", RuleRegistries, "ghcr.io/acme-evil/dbg"),
			v(KindPod, "p", RulePriorityClasses, "high"),
		}},
		{"no priority class named is allowed", all, &corev1.Pod{ObjectMeta: om("p", nil), Spec: spec("ghcr.io/acme/app")}, nil},
		{"deployment template", all, &appsv1.Deployment{ObjectMeta: om("d", nil), Spec: appsv1.DeploymentSpec{Template: template(spec("acme/app"))}},
			[]Violation{v(KindDeployment, "d", RuleRegistries, "docker.io/acme/app")}},
		{"statefulset template", all, &appsv1.StatefulSet{ObjectMeta: om("s", nil), Spec: appsv1.StatefulSetSpec{Template: template(spec("busybox"))}},
			[]Violation{v(KindStatefulSet, "s", RuleRegistries, "docker.io/library/busybox")}},
		{"daemonset template", all, &appsv1.DaemonSet{ObjectMeta: om("ds", nil), Spec: appsv1.DaemonSetSpec{Template: template(spec("busybox"))}},
			[]Violation{v(KindDaemonSet, "ds", RuleRegistries, "docker.io/library/busybox")}},
		{"replicaset template", all, &appsv1.ReplicaSet{ObjectMeta: om("rs", nil), Spec: appsv1.ReplicaSetSpec{Template: template(spec("busybox"))}},
			[]Violation{v(KindReplicaSet, "rs", RuleRegistries, "docker.io/library/busybox")}},
		{"job template", all, &batchv1.Job{ObjectMeta: om("j", nil), Spec: batchv1.JobSpec{Template: template(spec("busybox"))}},
			[]Violation{v(KindJob, "j", RuleRegistries, "docker.io/library/busybox")}},
		{"cronjob template", all, &batchv1.CronJob{ObjectMeta: om("cj", nil), Spec: batchv1.CronJobSpec{JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: template(spec("busybox"))}}}},
			[]Violation{v(KindCronJob, "cj", RuleRegistries, "docker.io/library/busybox")}},
		{"empty registry list allows nothing", &v1alpha1.Rules{Registries: &v1alpha1.RegistryList{Allowed: []string{}}},
			&corev1.Pod{ObjectMeta: om("p", nil), Spec: spec("ghcr.io/acme/app")}, []Violation{v(KindPod, "p", RuleRegistries, "ghcr.io/acme/app")}},
		{"registries absent allow everything", &v1alpha1.Rules{ServiceTypes: &v1alpha1.AllowList{Allowed: []string{"ClusterIP"}}},
			&corev1.Pod{ObjectMeta: om("p", nil), Spec: spec("nginx")}, nil},
		{"service NodePort", all, &corev1.Service{ObjectMeta: om("s", nil), Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort}},
			[]Violation{v(KindService, "s", RuleServiceTypes, "NodePort")}},
		{"service of no type is ClusterIP", all, &corev1.Service{ObjectMeta: om("s", nil)}, nil},
		{"claim of class fast", all, &corev1.PersistentVolumeClaim{ObjectMeta: om("c", nil), Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: str("fast")}},
			[]Violation{v(KindPersistentVolumeClaim, "c", RuleStorageClasses, "fast")}},
		{"claim's annotation wins over the field", all, &corev1.PersistentVolumeClaim{ObjectMeta: om("c", map[string]string{"volume.beta.kubernetes.io/storage-class": "fast"}),
			Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: str("standard")}},
			[]Violation{v(KindPersistentVolumeClaim, "c", RuleStorageClasses, "fast")}},
		{"claim of no class", all, &corev1.PersistentVolumeClaim{ObjectMeta: om("c", nil)},
			[]Violation{v(KindPersistentVolumeClaim, "c", RuleStorageClasses, "")}},
		{"claim of class standard", all, &corev1.PersistentVolumeClaim{ObjectMeta: om("c", nil), Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: str("standard")}}, nil},
		{"ingress by annotation", all, &networkingv1.Ingress{ObjectMeta: om("i", map[string]string{"kubernetes.io/ingress.class": "traefik"}), Spec: networkingv1.IngressSpec{IngressClassName: str("nginx")}},
			[]Violation{v(KindIngress, "i", RuleIngressClasses, "traefik")}},
		{"ingress of no class", all, &networkingv1.Ingress{ObjectMeta: om("i", nil)}, []Violation{v(KindIngress, "i", RuleIngressClasses, "")}},
		{"ingress of class nginx", all, &networkingv1.Ingress{ObjectMeta: om("i", nil), Spec: networkingv1.IngressSpec{IngressClassName: str("nginx")}}, nil},
		{"other kinds have none", all, &corev1.ConfigMap{ObjectMeta: om("cm", nil)}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Violations(tc.rules, tc.obj)); diff != "" {
				t.Errorf("Violations (-want +got):\n%s", diff)
			}
		})
	}
	if got, want := v(KindPod, "p", RuleRegistries, "docker.io/library/nginx").String(), "acme-a/Pod/p: registries=docker.io/library/nginx"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestRuleKindsAndHash(t *testing.T) {
	if k := RuleKinds(nil); k != nil {
		t.Errorf("RuleKinds(nil) = %v", k)
	}
	got := RuleKinds(&v1alpha1.Rules{ServiceTypes: &v1alpha1.AllowList{}, StorageClasses: &v1alpha1.AllowList{}})
	if diff := cmp.Diff([]string{KindService, KindPersistentVolumeClaim}, got); diff != "" {
		t.Errorf("RuleKinds (-want +got):\n%s", diff)
	}
	got = RuleKinds(&v1alpha1.Rules{PriorityClasses: &v1alpha1.AllowList{}, IngressClasses: &v1alpha1.AllowList{}})
	if diff := cmp.Diff([]string{KindPod, KindDeployment, KindStatefulSet, KindDaemonSet, KindReplicaSet, KindJob, KindCronJob, KindIngress}, got); diff != "" {
		t.Errorf("RuleKinds (-want +got):\n%s", diff)
	}
	a := acme(func(tn *v1alpha1.Tenant) {
		tn.Spec.Rules = &v1alpha1.Rules{ServiceTypes: &v1alpha1.AllowList{Allowed: []string{"ClusterIP"}}}
	})
	b := acme(func(tn *v1alpha1.Tenant) {
		tn.Spec.Rules = &v1alpha1.Rules{ServiceTypes: &v1alpha1.AllowList{Allowed: []string{"ClusterIP", "NodePort"}}}
	})
	if RulesHash(acme(nil)) != "" {
		t.Errorf("RulesHash without rules = %q, want empty", RulesHash(acme(nil)))
	}
	if RulesHash(a) == "" || RulesHash(a) == RulesHash(b) {
		t.Errorf("RulesHash %q and %q: want distinct, non-empty", RulesHash(a), RulesHash(b))
	}
	a2 := acme(func(tn *v1alpha1.Tenant) {
		tn.Spec.Rules = &v1alpha1.Rules{ServiceTypes: &v1alpha1.AllowList{Allowed: []string{"ClusterIP"}}}
		tn.Spec.Namespaces = append(tn.Spec.Namespaces, v1alpha1.Namespace{Name: "other"})
	})
	if RulesHash(a) != RulesHash(a2) {
		t.Error("RulesHash changed with a change outside spec.rules")
	}
}
