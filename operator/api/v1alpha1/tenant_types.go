package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Label and annotation keys, finalizer and field manager shared by the
// operator and anyone inspecting what it created.
const (
	// TenantLabel is put on every object the operator creates; its value is
	// the Tenant's name. The cache of child objects selects on it.
	TenantLabel = "tenancy.kubetenant.io/tenant"
	// ReservedPrefix is the key prefix users may not set in namespace
	// labels or annotations.
	ReservedPrefix = "tenancy.kubetenant.io/"
	// Finalizer holds a Tenant until its deletion policy has been applied.
	Finalizer = "tenancy.kubetenant.io/finalizer"
)

// OwnerKind is the kind of subject an owner is.
// +kubebuilder:validation:Enum=User;Group;ServiceAccount
type OwnerKind string

// The kinds of owner a Tenant accepts.
const (
	OwnerUser           OwnerKind = "User"
	OwnerGroup          OwnerKind = "Group"
	OwnerServiceAccount OwnerKind = "ServiceAccount"
)

// OwnerRole is the ClusterRole an owner is bound to in every tenant namespace.
// +kubebuilder:validation:Enum=admin;edit;view
type OwnerRole string

// The roles an owner can have.
const (
	RoleAdmin OwnerRole = "admin"
	RoleEdit  OwnerRole = "edit"
	RoleView  OwnerRole = "view"
)

// Owner is a subject that gets a RoleBinding in every tenant namespace.
//
// +kubebuilder:validation:XValidation:rule="self.kind == 'ServiceAccount' ? has(self.__namespace__) : !has(self.__namespace__)",message="namespace is required for a ServiceAccount owner and not allowed for a User or Group owner"
type Owner struct {
	// Kind is User, Group or ServiceAccount.
	Kind OwnerKind `json:"kind"`
	// Name is the user, group or service account name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Namespace is the namespace of a ServiceAccount owner; required for
	// ServiceAccount and only for it.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// Role is the ClusterRole (admin, edit or view) the owner is bound to.
	// +kubebuilder:default=admin
	// +optional
	Role OwnerRole `json:"role,omitempty"`
}

// Namespace is one namespace of the tenant. The namespace created is
// named <tenant>-<name>.
type Namespace struct {
	// Name is the suffix of the namespace name; a DNS label.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=62
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="namespace name must be a DNS label: lower-case letters, digits and '-', starting and ending with a letter or digit"
	Name string `json:"name"`
	// Labels are put on this namespace; they win over namespaceMetadata.
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.startsWith('tenancy.kubetenant.io/'))",message="label keys under tenancy.kubetenant.io/ are reserved for the operator"
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are put on this namespace; they win over namespaceMetadata.
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.startsWith('tenancy.kubetenant.io/'))",message="annotation keys under tenancy.kubetenant.io/ are reserved for the operator"
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// NamespaceMetadata is put on every namespace of the tenant.
type NamespaceMetadata struct {
	// Labels are put on every tenant namespace.
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.startsWith('tenancy.kubetenant.io/'))",message="label keys under tenancy.kubetenant.io/ are reserved for the operator"
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are put on every tenant namespace.
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule="self.all(k, !k.startsWith('tenancy.kubetenant.io/'))",message="annotation keys under tenancy.kubetenant.io/ are reserved for the operator"
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Quota becomes the ResourceQuota tenant-quota in every tenant namespace.
type Quota struct {
	// Hard is the set of hard limits, as in a ResourceQuota.
	// +kubebuilder:validation:MinProperties=1
	Hard corev1.ResourceList `json:"hard"`
}

// Limits becomes the LimitRange tenant-limits (type Container) in every
// tenant namespace.
//
// +kubebuilder:validation:XValidation:rule="has(self.default) || has(self.defaultRequest) || has(self.max) || has(self.min)",message="limits must set at least one of default, defaultRequest, max or min"
type Limits struct {
	// Default is the default limit of a container.
	// +optional
	Default corev1.ResourceList `json:"default,omitempty"`
	// DefaultRequest is the default request of a container.
	// +optional
	DefaultRequest corev1.ResourceList `json:"defaultRequest,omitempty"`
	// Max is the largest limit a container may have.
	// +optional
	Max corev1.ResourceList `json:"max,omitempty"`
	// Min is the smallest request a container may have.
	// +optional
	Min corev1.ResourceList `json:"min,omitempty"`
}

// NetworkIsolation says from where pods of a tenant namespace accept
// ingress traffic.
// +kubebuilder:validation:Enum=Tenant;Namespace;None
type NetworkIsolation string

// The network isolation modes.
const (
	// IsolationTenant denies ingress from outside the tenant's namespaces.
	IsolationTenant NetworkIsolation = "Tenant"
	// IsolationNamespace denies ingress from outside the same namespace.
	IsolationNamespace NetworkIsolation = "Namespace"
	// IsolationNone creates no network policy.
	IsolationNone NetworkIsolation = "None"
)

// RoleBinding binds a ClusterRole to subjects in every tenant namespace.
type RoleBinding struct {
	// ClusterRole is the name of the ClusterRole to bind.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	ClusterRole string `json:"clusterRole"`
	// Subjects are bound to the ClusterRole.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +listType=atomic
	Subjects []rbacv1.Subject `json:"subjects"`
}

// DeletionPolicy says what happens to a tenant's namespaces when the Tenant
// is deleted.
// +kubebuilder:validation:Enum=Delete;Retain
type DeletionPolicy string

// The deletion policies.
const (
	// DeletionDelete deletes the namespaces; the Tenant goes away once they
	// are gone.
	DeletionDelete DeletionPolicy = "Delete"
	// DeletionRetain keeps the namespaces and their contents, released from
	// the Tenant: owner references and the tenant label are removed.
	DeletionRetain DeletionPolicy = "Retain"
)

// SelfService lets the tenant's owners create namespaces of their own: a
// namespace named <tenant>-<suffix> and labelled
// tenancy.kubetenant.io/tenant: <tenant>, admitted by the
// ValidatingAdmissionPolicy kubetenant.io-self-service (ADR 0271, ADR 0272).
type SelfService struct {
	// MaxNamespaces is how many self-service namespaces the owners may
	// have; counted from status.namespaces entries marked selfService.
	// Zero forbids new ones.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	MaxNamespaces int32 `json:"maxNamespaces"`
}

// AllowList lists the values a rule allows. An absent allowed list allows
// everything; an empty one allows nothing.
type AllowList struct {
	// Allowed are the values allowed; absent allows everything, empty
	// nothing.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	// +listType=set
	// +optional
	Allowed []string `json:"allowed"`
}

// RegistryList lists the image reference prefixes a tenant may run.
type RegistryList struct {
	// Allowed are image reference prefixes ("ghcr.io/acme/",
	// "registry.k8s.io/"), compared with the image as the container
	// runtime resolves it: an image without a registry is
	// docker.io/library/<name>, one without a path under docker.io is
	// docker.io/library/... Absent allows everything, empty nothing.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	// +listType=set
	// +optional
	Allowed []string `json:"allowed"`
}

// Rules are what the tenant may use in every one of its namespaces,
// enforced at admission by the ValidatingAdmissionPolicy kubetenant.io-tenant-rules
// inside the API server (ADR 0270, ADR 0273). An absent rule allows
// everything.
//
// +kubebuilder:validation:XValidation:rule="!has(self.serviceTypes) || !has(self.serviceTypes.allowed) || self.serviceTypes.allowed.all(t, t in ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'])",message="rules.serviceTypes.allowed may name only ClusterIP, NodePort, LoadBalancer and ExternalName"
type Rules struct {
	// StorageClasses a PersistentVolumeClaim may name
	// (spec.storageClassName or the volume.beta.kubernetes.io/storage-class
	// annotation); a claim naming none gets the default class, which must
	// be in the list.
	// +optional
	StorageClasses *AllowList `json:"storageClasses,omitempty"`
	// IngressClasses an Ingress may name (spec.ingressClassName or the
	// kubernetes.io/ingress.class annotation); an Ingress naming none is
	// allowed only when the list is absent.
	// +optional
	IngressClasses *AllowList `json:"ingressClasses,omitempty"`
	// Registries are the image prefixes of Pods (containers, init and
	// ephemeral containers) and of the pod templates of Deployments,
	// StatefulSets, DaemonSets, ReplicaSets, Jobs and CronJobs.
	// +optional
	Registries *RegistryList `json:"registries,omitempty"`
	// ServiceTypes a Service may have (ClusterIP, NodePort, LoadBalancer,
	// ExternalName).
	// +optional
	ServiceTypes *AllowList `json:"serviceTypes,omitempty"`
	// PriorityClasses a Pod or pod template may name; one naming none is
	// allowed.
	// +optional
	PriorityClasses *AllowList `json:"priorityClasses,omitempty"`
}

// TenantSpec is the desired state of a Tenant.
type TenantSpec struct {
	// Owners each get a RoleBinding to their role in every tenant namespace.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +listType=atomic
	Owners []Owner `json:"owners"`
	// Namespaces of the tenant; each becomes namespace <tenant>-<name>.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +listType=map
	// +listMapKey=name
	Namespaces []Namespace `json:"namespaces"`
	// NamespaceMetadata is put on every tenant namespace.
	// +optional
	NamespaceMetadata *NamespaceMetadata `json:"namespaceMetadata,omitempty"`
	// Quota becomes ResourceQuota tenant-quota in every tenant namespace.
	// +optional
	Quota *Quota `json:"quota,omitempty"`
	// Limits becomes LimitRange tenant-limits in every tenant namespace.
	// +optional
	Limits *Limits `json:"limits,omitempty"`
	// NetworkIsolation is Tenant (deny ingress from outside the tenant's
	// namespaces), Namespace (deny ingress from outside the same namespace)
	// or None.
	// +kubebuilder:default=Tenant
	// +optional
	NetworkIsolation NetworkIsolation `json:"networkIsolation,omitempty"`
	// AdditionalRoleBindings are bound in every tenant namespace.
	// +kubebuilder:validation:MaxItems=32
	// +listType=atomic
	// +optional
	AdditionalRoleBindings []RoleBinding `json:"additionalRoleBindings,omitempty"`
	// Paused stops the operator from changing anything for this Tenant.
	// +optional
	Paused bool `json:"paused,omitempty"`
	// DeletionPolicy is Delete (deleting the Tenant deletes its namespaces)
	// or Retain (the namespaces stay, released from the Tenant).
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`
	// SelfService lets owners create namespaces of their own, up to
	// maxNamespaces; absent, they may create none.
	// +optional
	SelfService *SelfService `json:"selfService,omitempty"`
	// Rules restrict what the tenant may use in its namespaces, enforced
	// by the API server at admission; absent, everything is allowed.
	// +optional
	Rules *Rules `json:"rules,omitempty"`
}

// Phase summarises where a Tenant is in its life.
// +kubebuilder:validation:Enum=Pending;Provisioning;Ready;Failed;Paused;Terminating
type Phase string

// The phases of a Tenant.
const (
	PhasePending      Phase = "Pending"
	PhaseProvisioning Phase = "Provisioning"
	PhaseReady        Phase = "Ready"
	PhaseFailed       Phase = "Failed"
	PhasePaused       Phase = "Paused"
	PhaseTerminating  Phase = "Terminating"
)

// Condition types of a Tenant. The API contract: tools may match on these
// and on the reasons below; messages are for people.
const (
	// ConditionReady is True only when every other condition is True.
	ConditionReady = "Ready"
	// ConditionNamespacesReady is True when every namespace exists and is active.
	ConditionNamespacesReady = "NamespacesReady"
	// ConditionAccessReady is True when every role binding is applied.
	ConditionAccessReady = "AccessReady"
	// ConditionPoliciesReady is True when quota, limits and network policies are applied.
	ConditionPoliciesReady = "PoliciesReady"
	// ConditionExternalReady is True when the external provisioner accepted
	// the tenant; present only when a provisioner is configured.
	ConditionExternalReady = "ExternalReady"
	// ConditionRulesSatisfied is False when objects that existed before a
	// rule change violate spec.rules (they are reported, not deleted; the
	// message lists the first ten as namespace/kind/name: rule=value and
	// the count), True when none does; searched once per change of the
	// rules (ADR 0249), present only when spec.rules is set. It does not
	// hold Ready.
	ConditionRulesSatisfied = "RulesSatisfied"
	// ConditionSelfServiceWithinLimit is False when more self-service
	// namespaces exist than spec.selfService.maxNamespaces (a race of
	// concurrent creations); none is deleted. It does not hold Ready.
	ConditionSelfServiceWithinLimit = "SelfServiceWithinLimit"
	// ConditionAdmissionEnforced is False when the tenant sets
	// spec.selfService or spec.rules and the API server does not enforce
	// them: the chart's ValidatingAdmissionPolicies are not installed
	// (admissionPolicies.create: false) or the API server has no admission
	// policy API. The namespaces and everything in them are provisioned as
	// usual. Present only while False. It does not hold Ready.
	ConditionAdmissionEnforced = "AdmissionEnforced"
)

// Condition reasons.
const (
	// ReasonProvisioned: Ready is True.
	ReasonProvisioned = "Provisioned"
	// ReasonWaiting: Ready is False because a component condition is not yet True.
	ReasonWaiting = "Waiting"
	// ReasonApplied: a component condition is True.
	ReasonApplied = "Applied"
	// ReasonApplyFailed: the API server refused a child object; the message
	// has its answer.
	ReasonApplyFailed = "ApplyFailed"
	// ReasonNamespaceConflict: a namespace of the tenant exists and belongs
	// to someone else; it is left untouched. Phase Failed.
	ReasonNamespaceConflict = "NamespaceConflict"
	// ReasonNotActive: a namespace of the tenant is terminating.
	ReasonNotActive = "NamespaceNotActive"
	// ReasonAccepted: the external provisioner accepted this generation.
	ReasonAccepted = "Accepted"
	// ReasonExternalRejected: the external provisioner refused this
	// generation (4xx); retried on a spec change or after an hour. Phase Failed.
	ReasonExternalRejected = "ExternalRejected"
	// ReasonExternalUnavailable: the external provisioner failed
	// temporarily (5xx, 408, 429, timeout); retried with backoff.
	ReasonExternalUnavailable = "ExternalUnavailable"
	// ReasonWaitingForCluster: the external provisioner is called once the
	// in-cluster conditions are True.
	ReasonWaitingForCluster = "WaitingForCluster"
	// ReasonPaused: spec.paused is true.
	ReasonPaused = "Paused"
	// ReasonTerminating: the deletion policy is being applied.
	ReasonTerminating = "Terminating"
	// ReasonRulesViolated: objects violate spec.rules; the message lists them.
	ReasonRulesViolated = "RulesViolated"
	// ReasonRulesHeld: no object violates spec.rules.
	ReasonRulesHeld = "RulesHeld"
	// ReasonRulesUnchecked: the search for violators failed (a LIST was
	// refused); retried with backoff.
	ReasonRulesUnchecked = "RulesUnchecked"
	// ReasonOverLimit: more self-service namespaces than maxNamespaces.
	ReasonOverLimit = "OverLimit"
	// ReasonWithinLimit: self-service namespaces within maxNamespaces.
	ReasonWithinLimit = "WithinLimit"
	// ReasonPoliciesNotInstalled: the admission policies the operator binds
	// are not installed; spec.selfService and spec.rules are not enforced.
	ReasonPoliciesNotInstalled = "PoliciesNotInstalled"
	// ReasonDeletionFailed: applying the deletion policy or the external
	// DELETE failed; retried with backoff.
	ReasonDeletionFailed = "DeletionFailed"
)

// NamespacePhase is the observed phase of one tenant namespace.
// +kubebuilder:validation:Enum=Active;Terminating;Missing;Conflict
type NamespacePhase string

// The phases of a tenant namespace.
const (
	// NamespaceActive: the namespace exists, belongs to the tenant and is active.
	NamespaceActive NamespacePhase = "Active"
	// NamespaceTerminating: the namespace is being deleted; it is created
	// again once gone.
	NamespaceTerminating NamespacePhase = "Terminating"
	// NamespaceMissing: creating or applying the namespace failed.
	NamespaceMissing NamespacePhase = "Missing"
	// NamespaceConflict: a namespace of that name exists and is not the
	// tenant's (not created by the operator for this Tenant, or re-created
	// by someone else); it is left untouched.
	NamespaceConflict NamespacePhase = "Conflict"
)

// NamespaceStatus is the observed state of one tenant namespace.
type NamespaceStatus struct {
	// Name is the full namespace name.
	Name string `json:"name"`
	// Phase is Active, Terminating, Missing (creating or applying it
	// failed) or Conflict (it exists and is not the tenant's).
	Phase NamespacePhase `json:"phase"`
	// UID is the UID of the namespace the operator created. The operator
	// writes to the namespace only while its UID is this one, so a
	// namespace deleted and re-created by someone else is never adopted.
	// +optional
	UID types.UID `json:"uid,omitempty"`
	// SelfService marks a namespace an owner created (not declared in
	// spec.namespaces); admission counts these against
	// spec.selfService.maxNamespaces.
	// +optional
	SelfService bool `json:"selfService,omitempty"`
}

// ExternalStatus records what was sent to the external provisioner, so
// that each call is made once, across restarts and stale caches.
type ExternalStatus struct {
	// AcceptedGeneration is the last generation the provisioner accepted
	// (PUT answered 2xx).
	// +optional
	AcceptedGeneration int64 `json:"acceptedGeneration,omitempty"`
	// RejectedGeneration is the last generation the provisioner rejected
	// permanently (PUT answered 4xx other than 408 and 429).
	// +optional
	RejectedGeneration int64 `json:"rejectedGeneration,omitempty"`
	// RejectedTime is when RejectedGeneration was rejected; the PUT is
	// tried again an hour later, or on a spec change.
	// +optional
	RejectedTime *metav1.Time `json:"rejectedTime,omitempty"`
	// Deleted is true once the provisioner answered the DELETE of this
	// Tenant with 2xx or 404.
	// +optional
	Deleted bool `json:"deleted,omitempty"`
}

// TenantStatus is the observed state of a Tenant.
type TenantStatus struct {
	// Phase summarises the conditions.
	// +optional
	Phase Phase `json:"phase,omitempty"`
	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions: Ready (summary), NamespacesReady, AccessReady,
	// PoliciesReady and, with an external provisioner, ExternalReady.
	// Reasons: Provisioned, Waiting, Applied, ApplyFailed,
	// NamespaceConflict, NamespaceNotActive, Accepted, ExternalRejected,
	// ExternalUnavailable, WaitingForCluster, Paused, Terminating,
	// DeletionFailed.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Namespaces lists each tenant namespace, its phase and the UID of the
	// namespace the operator created.
	// +listType=map
	// +listMapKey=name
	// +optional
	Namespaces []NamespaceStatus `json:"namespaces,omitempty"`
	// NamespaceCount is the number of namespaces in status.namespaces, for
	// the printer column.
	// +optional
	NamespaceCount int32 `json:"namespaceCount,omitempty"`
	// ProvisionedGeneration is the last generation that became Ready; the
	// operator posts its Provisioned event once per generation.
	// +optional
	ProvisionedGeneration int64 `json:"provisionedGeneration,omitempty"`
	// LastProvisionedTime is when the Tenant last became Ready.
	// +optional
	LastProvisionedTime *metav1.Time `json:"lastProvisionedTime,omitempty"`
	// AppliedHash is a digest of the desired children last applied in
	// full. While it matches the spec, a resync writes nothing; only a
	// change of the spec or a child edited or deleted by someone else is
	// applied again.
	// +optional
	AppliedHash string `json:"appliedHash,omitempty"`
	// PrunedGeneration is the last generation whose pruning of children
	// the spec no longer asks for succeeded; pruning runs again until it
	// matches the generation.
	// +optional
	PrunedGeneration int64 `json:"prunedGeneration,omitempty"`
	// External records the calls made to the external provisioner.
	// +optional
	External *ExternalStatus `json:"external,omitempty"`
	// RulesHash is a digest of the spec.rules whose violators the operator
	// last looked for (RulesSatisfied); a change of the rules is searched
	// once, with one paged LIST per kind the rules constrain (ADR 0249).
	// +optional
	RulesHash string `json:"rulesHash,omitempty"`
}

// Tenant declares a tenant: its namespaces, owners, quotas, limits, network
// isolation and what happens to its namespaces when it is deleted.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=tnt
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Namespaces",type=integer,JSONPath=`.status.namespaceCount`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,description="Why the tenant is or is not Ready (kubectl get -o wide)"
// +kubebuilder:printcolumn:name="Self-service",type=integer,priority=1,JSONPath=`.spec.selfService.maxNamespaces`,description="How many namespaces owners may create (kubectl get -o wide)"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$') && size(self.metadata.name) <= 62",message="the Tenant name must be a DNS label (lower-case letters, digits and '-') of at most 62 characters"
// +kubebuilder:validation:XValidation:rule="self.spec.namespaces.all(n, size(self.metadata.name) + 1 + size(n.name) <= 63)",message="every namespace name <tenant>-<name> must be at most 63 characters: shorten the Tenant name or the namespace name"
type Tenant struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state.
	// +required
	Spec TenantSpec `json:"spec"`
	// Status is the observed state, written by the operator.
	// +optional
	Status TenantStatus `json:"status,omitempty"`
}

// TenantList is a list of Tenants.
//
// +kubebuilder:object:root=true
type TenantList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the Tenants.
	Items []Tenant `json:"items"`
}
