// Package chaos holds the tenant-operator's chaos tests (issue 25): the
// operator binary runs as child processes against a real etcd and
// kube-apiserver (each test its own, so that a restarted or unreachable
// API server harms no other test), and the tests inject the
// faults of production: the operator SIGKILLed between the external
// provisioner's PUT and the status write, the API server restarted while
// Tenants provision, the leader of two replicas killed with work in flight,
// and the API server unreachable from the operator for a while. Each test
// asserts that nothing was lost (Tenants Ready, calls per idempotency key,
// orphan namespaces) and reports the fault, what was injected, how long the
// recovery took and what was lost.
//
// The short variants run in `go test` (and so in `make test`); `make chaos`
// runs the long ones (CHAOS_LONG=1: 1,000 Tenants, 60 s partition) and
// prints the figures. This file's siblings are the harness: a recording
// provisioner, a supervised operator process and a TCP proxy that can cut
// the operator off the API server. See docs/reliability.md and ADR 0246.
package chaos
