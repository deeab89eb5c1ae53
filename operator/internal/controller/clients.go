package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	admissionregistrationv1ac "k8s.io/client-go/applyconfigurations/admissionregistration/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	networkingv1ac "k8s.io/client-go/applyconfigurations/networking/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	admissionregistrationv1client "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	networkingv1client "k8s.io/client-go/kubernetes/typed/networking/v1"
	rbacv1client "k8s.io/client-go/kubernetes/typed/rbac/v1"
	"k8s.io/client-go/rest"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// builtin holds client-go's generated clients of the built-in groups the
// operator writes and watches, speaking protobuf (ADR 0354). The Tenant is
// a custom resource and stays JSON, through controller-runtime.
//
// controller-runtime's Apply asks for JSON whatever the kind and decodes
// each answer (the whole object, managedFields included) into the apply
// configuration with encoding/json; its child watches went through the
// dynamic client, JSON into unstructured maps. Both were most of the
// operator's decoding CPU in the 1,000-Tenant burst (issue 38).
type builtin struct {
	core corev1client.CoreV1Interface
	rbac rbacv1client.RbacV1Interface
	net  networkingv1client.NetworkingV1Interface
	adm  admissionregistrationv1client.AdmissionregistrationV1Interface
	// tenancy is the JSON client of the operator's own group (custom
	// resources have no protobuf), for the TenantRules children (ADR 0350).
	tenancy rest.Interface
}

// protobuf returns a copy of cfg that sends and accepts protobuf, JSON
// accepted as a fallback.
func protobuf(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	return cfg
}

// newBuiltin builds the clients on the manager's HTTP client, so that
// they share its connections.
func newBuiltin(cfg *rest.Config, h *http.Client) (*builtin, error) {
	tenancy, err := tenancyClient(cfg, h)
	if err != nil {
		return nil, err
	}
	cfg = protobuf(cfg)
	core, err := corev1client.NewForConfigAndClient(cfg, h)
	if err != nil {
		return nil, fmt.Errorf("building the core/v1 client: %w", err)
	}
	rbac, err := rbacv1client.NewForConfigAndClient(cfg, h)
	if err != nil {
		return nil, fmt.Errorf("building the rbac/v1 client: %w", err)
	}
	net, err := networkingv1client.NewForConfigAndClient(cfg, h)
	if err != nil {
		return nil, fmt.Errorf("building the networking/v1 client: %w", err)
	}
	adm, err := admissionregistrationv1client.NewForConfigAndClient(cfg, h)
	if err != nil {
		return nil, fmt.Errorf("building the admissionregistration/v1 client: %w", err)
	}
	return &builtin{core: core, rbac: rbac, net: net, adm: adm, tenancy: tenancy}, nil
}

// tenancyClient is a REST client of tenancy.kubetenant.io/v1alpha1 in
// JSON, decoding into the package's typed objects.
func tenancyClient(cfg *rest.Config, h *http.Client) (rest.Interface, error) {
	cfg = rest.CopyConfig(cfg)
	gv := v1alpha1.GroupVersion
	cfg.GroupVersion = &gv
	cfg.APIPath = "/apis"
	cfg.ContentType = runtime.ContentTypeJSON
	cfg.AcceptContentTypes = runtime.ContentTypeJSON
	s := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("building the tenancy scheme: %w", err)
	}
	metav1.AddToGroupVersion(s, gv)
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(s).WithoutConversion()
	c, err := rest.RESTClientForConfigAndClient(cfg, h)
	if err != nil {
		return nil, fmt.Errorf("building the tenancy client: %w", err)
	}
	return c, nil
}

// applyOptions: server-side apply as the operator's field manager, taking
// over fields others changed (drift is repaired, not negotiated).
var applyOptions = metav1.ApplyOptions{FieldManager: FieldManager, Force: true}

// apply server-side applies obj, one of the apply configurations package
// tenant builds, and returns the API server's answer for a namespace (its
// phase and UID are recorded). Any other kind's answer is left unread:
// decoding it (the whole object, managedFields included) was a tenth of
// the operator's allocations in a creation burst.
func (b *builtin) apply(ctx context.Context, obj runtime.ApplyConfiguration) (*corev1.Namespace, error) {
	switch o := obj.(type) {
	case *corev1ac.NamespaceApplyConfiguration:
		return b.core.Namespaces().Apply(ctx, o, applyOptions)
	case *rbacv1ac.RoleBindingApplyConfiguration:
		return nil, b.send(ctx, b.rbac.RESTClient(), o.Namespace, "rolebindings", o.Name, o)
	case *corev1ac.ResourceQuotaApplyConfiguration:
		return nil, b.send(ctx, b.core.RESTClient(), o.Namespace, "resourcequotas", o.Name, o)
	case *corev1ac.LimitRangeApplyConfiguration:
		return nil, b.send(ctx, b.core.RESTClient(), o.Namespace, "limitranges", o.Name, o)
	case *networkingv1ac.NetworkPolicyApplyConfiguration:
		return nil, b.send(ctx, b.net.RESTClient(), o.Namespace, "networkpolicies", o.Name, o)
	case *rbacv1ac.ClusterRoleApplyConfiguration:
		return nil, b.send(ctx, b.rbac.RESTClient(), nil, "clusterroles", o.Name, o)
	case *rbacv1ac.ClusterRoleBindingApplyConfiguration:
		return nil, b.send(ctx, b.rbac.RESTClient(), nil, "clusterrolebindings", o.Name, o)
	case *admissionregistrationv1ac.ValidatingAdmissionPolicyBindingApplyConfiguration:
		return nil, b.send(ctx, b.adm.RESTClient(), nil, "validatingadmissionpolicybindings", o.Name, o)
	case *tenant.RulesApplyConfiguration:
		return nil, b.send(ctx, b.tenancy, o.Namespace, "tenantrules", o.Name, o)
	}
	return nil, fmt.Errorf("no client applies %T", obj)
}

// send is the request client-go's generated Apply sends (the apply
// configuration as JSON, fieldManager and force as parameters), reading
// only the answer's status: an error is a *errors.StatusError as from the
// generated client.
func (b *builtin) send(ctx context.Context, rc rest.Interface, namespace *string, resource string, name *string, obj runtime.ApplyConfiguration) error {
	if name == nil {
		return fmt.Errorf("applying %s: the apply configuration has no name", resource)
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("encoding %s %s: %w", resource, *name, err)
	}
	ns := namespaceOf(namespace)
	return unread(ctx, rc.Patch(types.ApplyYAMLPatchType).
		NamespaceIfScoped(ns, ns != "").
		Resource(resource).
		Name(*name).
		Param("fieldManager", FieldManager).
		Param("force", "true").
		Body(body))
}

// unread sends req and reads only the answer's status: an error is the
// *errors.StatusError Do would return. Do would read the whole answer into
// memory before it is dropped; Stream hands a 2xx answer's body over,
// drained here through io.Discard's pooled buffer (ADR 0375).
func unread(ctx context.Context, req *rest.Request) error {
	answer, err := req.Stream(ctx)
	if err != nil {
		return err
	}
	defer answer.Close()
	if _, err := io.Copy(io.Discard, answer); err != nil {
		return fmt.Errorf("reading an answer of the API server: %w", err)
	}
	return nil
}

func namespaceOf(ns *string) string {
	if ns == nil {
		return ""
	}
	return *ns
}
