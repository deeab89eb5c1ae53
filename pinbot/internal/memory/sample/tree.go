package sample

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Tree reads the resident set size of a process and all its descendants
// from /proc: the whole process tree, so that work forked into a child
// (or a grandchild) is measured with its parent. It is the measurement
// from outside the code under test where no cgroup v2 can be delegated
// to the run (ADR 0288): a single /proc/PID can be dodged by forking.
// Pages shared between the processes (the parent's after fork) count once
// per process, so the figure errs high, never low.
type Tree struct {
	Pid int
	// Proc is where procfs is mounted; empty means /proc.
	Proc string
}

// Read returns the summed RSS of the root process and its descendants.
// Its error wraps ErrExited when the root no longer exists.
func (t Tree) Read(ctx context.Context) (int64, error) {
	pids, err := t.PIDs()
	if err != nil {
		return 0, err
	}
	total, err := PID(t).Read(ctx)
	if err != nil {
		return 0, err
	}
	for _, p := range pids[1:] {
		rss, err := PID{Pid: p, Proc: t.Proc}.Read(ctx)
		if errors.Is(err, ErrExited) {
			continue // a descendant that ended between the scan and the read
		}
		if err != nil {
			return 0, err
		}
		total += rss
	}
	return total, nil
}

// PIDs lists the root and its descendants, the root first, from each
// process's parent in /proc/PID/stat.
func (t Tree) PIDs() ([]int, error) {
	proc := t.Proc
	if proc == "" {
		proc = "/proc"
	}
	entries, err := os.ReadDir(proc)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", proc, err)
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(proc, e.Name(), "stat"))
		if err != nil {
			continue // ended meanwhile
		}
		if ppid, ok := parentOf(b); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	out := []int{t.Pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out, nil
}

// parentOf reads the parent pid from a /proc/PID/stat line: "pid (comm)
// state ppid ...", where comm may hold spaces and parentheses, so the
// fields are counted after the last ')'.
func parentOf(stat []byte) (int, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	return ppid, err == nil
}

// String names the process tree.
func (t Tree) String() string {
	return "pid " + strconv.Itoa(t.Pid) + " and its descendants (RSS of the process tree from /proc)"
}
