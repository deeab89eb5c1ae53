package tenant

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// The rules' names, as the admission policy and the RulesSatisfied
// condition write them.
const (
	RuleStorageClasses  = "storageClasses"
	RuleIngressClasses  = "ingressClasses"
	RuleRegistries      = "registries"
	RuleServiceTypes    = "serviceTypes"
	RulePriorityClasses = "priorityClasses"
)

// The kinds the rules constrain, as the policy kubetenant.io-tenant-rules matches
// them (ADR 0272).
const (
	KindPod                   = "Pod"
	KindService               = "Service"
	KindPersistentVolumeClaim = "PersistentVolumeClaim"
	KindIngress               = "Ingress"
	KindDeployment            = "Deployment"
	KindStatefulSet           = "StatefulSet"
	KindDaemonSet             = "DaemonSet"
	KindReplicaSet            = "ReplicaSet"
	KindJob                   = "Job"
	KindCronJob               = "CronJob"
)

// podKinds are the kinds with a pod spec: the Pod and its templates.
var podKinds = []string{KindPod, KindDeployment, KindStatefulSet, KindDaemonSet, KindReplicaSet, KindJob, KindCronJob}

// RulesHash is a digest of spec.rules; "" when the Tenant has none. The
// operator records it in status.rulesHash once it has looked for objects
// that violate those rules (ADR 0249), so that the search runs once per
// change of the rules.
func RulesHash(t *v1alpha1.Tenant) string {
	if t.Spec.Rules == nil {
		return ""
	}
	b, err := json.Marshal(t.Spec.Rules)
	if err != nil {
		panic("tenant: encoding spec.rules: " + err.Error()) // plain strings and lists
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// RuleKinds are the kinds whose existing objects the rules in force
// constrain, in a fixed order: the kinds to list after a rule change.
func RuleKinds(r *v1alpha1.Rules) []string {
	if r == nil {
		return nil
	}
	var kinds []string
	if r.Registries != nil || r.PriorityClasses != nil {
		kinds = append(kinds, podKinds...)
	}
	if r.ServiceTypes != nil {
		kinds = append(kinds, KindService)
	}
	if r.StorageClasses != nil {
		kinds = append(kinds, KindPersistentVolumeClaim)
	}
	if r.IngressClasses != nil {
		kinds = append(kinds, KindIngress)
	}
	return kinds
}

// Violation is one value of an existing object that spec.rules does not
// allow: what the admission policy would deny were the object created now.
type Violation struct {
	Namespace, Kind, Name string
	// Rule is one of the Rule constants; Value the offending value (an
	// image as the runtime resolves it, a class, a type).
	Rule, Value string
}

// String is namespace/kind/name: rule=value.
func (v Violation) String() string {
	return fmt.Sprintf("%s/%s/%s: %s=%s", v.Namespace, v.Kind, v.Name, v.Rule, v.Value)
}

// Violations returns what in obj the rules do not allow, with the
// semantics of ADR 0272 (the same as the policy kubetenant.io-tenant-rules): a
// rule that is set allows only the values in its list (an empty or absent
// list none); an image is compared as the runtime resolves it; the class
// annotations older clients write win over the fields; a claim or an
// Ingress naming no class has class ”; a Service of no type is
// ClusterIP; a pod spec naming no priority class is allowed. Objects of
// other kinds have none.
func Violations(r *v1alpha1.Rules, obj any) []Violation {
	if r == nil {
		return nil
	}
	var out []Violation
	add := func(ns, kind, name, rule, value string) {
		out = append(out, Violation{Namespace: ns, Kind: kind, Name: name, Rule: rule, Value: value})
	}
	checkPod := func(ns, kind, name string, spec *corev1.PodSpec) {
		if r.Registries != nil {
			for _, image := range images(spec) {
				if !slices.ContainsFunc(r.Registries.Allowed, func(p string) bool { return strings.HasPrefix(image, p) }) {
					add(ns, kind, name, RuleRegistries, image)
				}
			}
		}
		if r.PriorityClasses != nil && spec.PriorityClassName != "" && !slices.Contains(r.PriorityClasses.Allowed, spec.PriorityClassName) {
			add(ns, kind, name, RulePriorityClasses, spec.PriorityClassName)
		}
	}
	switch o := obj.(type) {
	case *corev1.Pod:
		checkPod(o.Namespace, KindPod, o.Name, &o.Spec)
	case *appsv1.Deployment:
		checkPod(o.Namespace, KindDeployment, o.Name, &o.Spec.Template.Spec)
	case *appsv1.StatefulSet:
		checkPod(o.Namespace, KindStatefulSet, o.Name, &o.Spec.Template.Spec)
	case *appsv1.DaemonSet:
		checkPod(o.Namespace, KindDaemonSet, o.Name, &o.Spec.Template.Spec)
	case *appsv1.ReplicaSet:
		checkPod(o.Namespace, KindReplicaSet, o.Name, &o.Spec.Template.Spec)
	case *batchv1.Job:
		checkPod(o.Namespace, KindJob, o.Name, &o.Spec.Template.Spec)
	case *batchv1.CronJob:
		checkPod(o.Namespace, KindCronJob, o.Name, &o.Spec.JobTemplate.Spec.Template.Spec)
	case *corev1.Service:
		typ := string(o.Spec.Type)
		if typ == "" {
			typ = string(corev1.ServiceTypeClusterIP)
		}
		if r.ServiceTypes != nil && !slices.Contains(r.ServiceTypes.Allowed, typ) {
			add(o.Namespace, KindService, o.Name, RuleServiceTypes, typ)
		}
	case *corev1.PersistentVolumeClaim:
		class, ok := o.Annotations[corev1.BetaStorageClassAnnotation]
		if !ok && o.Spec.StorageClassName != nil {
			class = *o.Spec.StorageClassName
		}
		if r.StorageClasses != nil && !slices.Contains(r.StorageClasses.Allowed, class) {
			add(o.Namespace, KindPersistentVolumeClaim, o.Name, RuleStorageClasses, class)
		}
	case *networkingv1.Ingress:
		class, ok := o.Annotations["kubernetes.io/ingress.class"]
		if !ok && o.Spec.IngressClassName != nil {
			class = *o.Spec.IngressClassName
		}
		if r.IngressClasses != nil && !slices.Contains(r.IngressClasses.Allowed, class) {
			add(o.Namespace, KindIngress, o.Name, RuleIngressClasses, class)
		}
	}
	return out
}

// images are the images of a pod spec's containers, init and ephemeral
// containers, resolved.
func images(spec *corev1.PodSpec) []string {
	var out []string
	for _, c := range spec.Containers {
		out = append(out, ResolveImage(c.Image))
	}
	for _, c := range spec.InitContainers {
		out = append(out, ResolveImage(c.Image))
	}
	for _, c := range spec.EphemeralContainers {
		out = append(out, ResolveImage(c.Image))
	}
	return out
}

// ResolveImage writes an image reference as the container runtime resolves
// it, as the policy does: without a registry (the first path element has
// no '.' or ':' and is not localhost) it is under docker.io/, and a
// single-element Docker Hub name under docker.io/library/.
func ResolveImage(image string) string {
	first, rest, ok := strings.Cut(image, "/")
	switch {
	case !ok:
		return "docker.io/library/" + image
	case strings.ContainsAny(first, ".:") || first == "localhost":
		if first == "docker.io" && !strings.Contains(rest, "/") {
			return "docker.io/library/" + rest
		}
		return image
	default:
		return "docker.io/" + image
	}
}
