package controller

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// statusPatch is the merge patch client.MergeFromWithOptimisticLock
// computes when only t's status changed since old (the resourceVersion a
// precondition, each changed field of the status given, a field no longer
// set as null, lists replaced whole), built from the typed statuses field
// by field (ADR 0375). MergeFrom encodes both Tenants, spec and metadata
// included, decodes both encodings into maps and diffs them: a tenth of the
// operator's allocations in the creation burst of issue 38.
func statusPatch(old, t *v1alpha1.Tenant) ([]byte, error) {
	o, n := &old.Status, &t.Status
	var s mergeObject
	s.field("phase", o.Phase != n.Phase, n.Phase == "", n.Phase)
	s.field("observedGeneration", o.ObservedGeneration != n.ObservedGeneration, n.ObservedGeneration == 0, n.ObservedGeneration)
	s.field("conditions", !equality.Semantic.DeepEqual(o.Conditions, n.Conditions), len(n.Conditions) == 0, n.Conditions)
	s.field("namespaces", !equality.Semantic.DeepEqual(o.Namespaces, n.Namespaces), len(n.Namespaces) == 0, n.Namespaces)
	s.field("namespaceCount", o.NamespaceCount != n.NamespaceCount, n.NamespaceCount == 0, n.NamespaceCount)
	s.field("provisionedGeneration", o.ProvisionedGeneration != n.ProvisionedGeneration, n.ProvisionedGeneration == 0, n.ProvisionedGeneration)
	s.field("lastProvisionedTime", encodedTime(o.LastProvisionedTime) != encodedTime(n.LastProvisionedTime), n.LastProvisionedTime == nil, n.LastProvisionedTime)
	s.field("appliedHash", o.AppliedHash != n.AppliedHash, n.AppliedHash == "", n.AppliedHash)
	s.field("prunedGeneration", o.PrunedGeneration != n.PrunedGeneration, n.PrunedGeneration == 0, n.PrunedGeneration)
	if oe, ne := o.External, n.External; oe != nil && ne != nil {
		// An object in a merge patch is merged key by key, so the change of
		// one that stays is itself a merge patch.
		var e mergeObject
		e.field("acceptedGeneration", oe.AcceptedGeneration != ne.AcceptedGeneration, ne.AcceptedGeneration == 0, ne.AcceptedGeneration)
		e.field("rejectedGeneration", oe.RejectedGeneration != ne.RejectedGeneration, ne.RejectedGeneration == 0, ne.RejectedGeneration)
		e.field("rejectedTime", encodedTime(oe.RejectedTime) != encodedTime(ne.RejectedTime), ne.RejectedTime == nil, ne.RejectedTime)
		e.field("deleted", oe.Deleted != ne.Deleted, !ne.Deleted, ne.Deleted)
		if e.err != nil {
			return nil, e.err
		}
		if e.buf.Len() > 0 {
			s.raw("external", e.bytes())
		}
	} else {
		s.field("external", (oe == nil) != (ne == nil), ne == nil, ne)
	}
	s.field("rulesHash", o.RulesHash != n.RulesHash, n.RulesHash == "", n.RulesHash)
	if s.err != nil {
		return nil, fmt.Errorf("encoding the status of tenant %s: %w", t.Name, s.err)
	}
	rv, err := json.Marshal(t.ResourceVersion)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(rv) + s.buf.Len() + 48)
	b.WriteString(`{"metadata":{"resourceVersion":`)
	b.Write(rv)
	b.WriteString(`},"status":`)
	b.Write(s.bytes())
	b.WriteString(`}`)
	return b.Bytes(), nil
}

// encodedTime is how a *metav1.Time field reads in JSON (to the second,
// in UTC), "" when it is not set: MergeFrom compares encodings.
func encodedTime(t *metav1.Time) string {
	switch {
	case t == nil:
		return ""
	case t.IsZero():
		return "null"
	}
	return t.UTC().Format(time.RFC3339)
}

// mergeObject writes the members of a JSON merge patch object.
type mergeObject struct {
	buf bytes.Buffer
	err error
}

// field adds name when changed: null when the new value is not set
// (omitempty), else the new value.
func (m *mergeObject) field(name string, changed, unset bool, v any) {
	if !changed || m.err != nil {
		return
	}
	if unset {
		m.raw(name, []byte("null"))
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		m.err = err
		return
	}
	m.raw(name, b)
}

func (m *mergeObject) raw(name string, value []byte) {
	if m.buf.Len() == 0 {
		m.buf.WriteByte('{')
	} else {
		m.buf.WriteByte(',')
	}
	m.buf.WriteByte('"')
	m.buf.WriteString(name)
	m.buf.WriteString(`":`)
	m.buf.Write(value)
}

// bytes is the object, {} when nothing was added.
func (m *mergeObject) bytes() []byte {
	if m.buf.Len() == 0 {
		return []byte("{}")
	}
	return append(m.buf.Bytes(), '}')
}
