//go:build !linux

package controlplane

import "syscall"

// procAttr returns no special attributes: only Linux can tie a child's life
// to its parent's.
func procAttr() *syscall.SysProcAttr { return nil }
