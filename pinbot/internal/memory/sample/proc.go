package sample

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// PID reads the resident set size of a process from /proc/PID/statm.
type PID struct {
	Pid int
	// Proc is where procfs is mounted; empty means /proc.
	Proc string
}

// Read returns the process's resident set size in bytes. Its error wraps
// ErrExited when the process no longer exists.
func (p PID) Read(context.Context) (int64, error) {
	proc := p.Proc
	if proc == "" {
		proc = "/proc"
	}
	path := filepath.Join(proc, strconv.Itoa(p.Pid), "statm")
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
			return 0, fmt.Errorf("reading %s: %w", path, ErrExited)
		}
		return 0, fmt.Errorf("reading %s: %w", path, err)
	}
	// statm: size resident shared text lib data dt, in pages.
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, fmt.Errorf("reading %s: want at least 2 fields, got %q", path, b)
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("reading %s: resident pages: %w", path, err)
	}
	if pages == 0 {
		// A zombie keeps its /proc entry with every count at zero until its
		// parent reaps it; no live process has no resident memory.
		return 0, fmt.Errorf("reading %s: no resident memory: %w", path, ErrExited)
	}
	return pages * int64(os.Getpagesize()), nil
}

// String names the process.
func (p PID) String() string { return "pid " + strconv.Itoa(p.Pid) + " (RSS from /proc)" }

// Cgroup reads the memory a cgroup charges: memory.current on cgroup v2,
// memory.usage_in_bytes on cgroup v1. Both include page cache.
type Cgroup struct {
	Dir  string
	file string
}

// NewCgroup finds the usage file in dir, cgroup v2's first.
func NewCgroup(dir string) (*Cgroup, error) {
	for _, f := range []string{"memory.current", "memory.usage_in_bytes"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return &Cgroup{Dir: dir, file: f}, nil
		}
	}
	return nil, fmt.Errorf("cgroup folder %s has neither memory.current (cgroup v2) nor memory.usage_in_bytes (cgroup v1)", dir)
}

// Read returns the cgroup's memory usage in bytes.
func (c *Cgroup) Read(context.Context) (int64, error) {
	path := filepath.Join(c.Dir, c.file)
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", path, err)
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("reading %s: want a byte count, got %.40q", path, b)
	}
	return n, nil
}

// Version is 2 or 1: the cgroup version whose usage file the folder has.
func (c *Cgroup) Version() int {
	if c.file == "memory.current" {
		return 2
	}
	return 1
}

// String names the cgroup and its file.
func (c *Cgroup) String() string { return "cgroup " + filepath.Join(c.Dir, c.file) }
