package sample

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestPIDReadsThisProcess(t *testing.T) {
	p := PID{Pid: os.Getpid()}
	before, err := p.Read(context.Background())
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if before < 1<<20 || before > 16<<30 {
		t.Fatalf("RSS of the test process = %d bytes, not plausible", before)
	}
	// Touching 64 MiB of fresh anonymous memory, outside the Go heap (which
	// may reuse pages it already holds), must show in the RSS.
	b, err := syscall.Mmap(-1, 0, 64<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(b)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	after, err := p.Read(context.Background())
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if after-before < 60<<20 {
		t.Errorf("RSS grew %d bytes after touching 64 MiB, want at least 60 MiB", after-before)
	}
}

func TestPIDExited(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatalf("running a child: %v", err)
	}
	_, err := PID{Pid: cmd.Process.Pid}.Read(context.Background())
	if !errors.Is(err, ErrExited) {
		t.Fatalf("Read of a reaped process = %v, want ErrExited", err)
	}
}

func TestPIDMalformedStatm(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "7"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "7", "statm"), []byte("12 x 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := PID{Pid: 7, Proc: dir}.Read(context.Background())
	if err == nil || !strings.Contains(err.Error(), "resident pages") {
		t.Fatalf("Read = %v, want a resident pages error", err)
	}
}

// ownMemoryCgroup finds the folder of this process's memory cgroup on this
// machine: the v1 memory controller's when it is mounted, else the v2
// unified hierarchy's.
func ownMemoryCgroup(t *testing.T) (dir string, version int) {
	t.Helper()
	mounts := map[string]string{} // "memory" (v1) or "" (v2) -> mount point
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ... mountpoint ... - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		fields, after := strings.Fields(pre), strings.Fields(post)
		if len(fields) < 5 || len(after) < 3 {
			continue
		}
		switch {
		case after[0] == "cgroup" && strings.Contains(","+after[2]+",", ",memory,"):
			mounts["memory"] = fields[4]
		case after[0] == "cgroup2":
			if _, seen := mounts[""]; !seen {
				mounts[""] = fields[4]
			}
		}
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		ctrl, path := parts[1], parts[2]
		key := ""
		version = 2
		if strings.Contains(","+ctrl+",", ",memory,") {
			key, version = "memory", 1
		} else if ctrl != "" {
			continue
		}
		mnt, ok := mounts[key]
		if !ok {
			continue
		}
		for _, d := range []string{filepath.Join(mnt, path), mnt} {
			if _, err := NewCgroup(d); err == nil {
				if version == 1 {
					return d, 1
				}
				dir = d
			}
		}
		if dir != "" && version == 2 {
			return dir, 2
		}
	}
	t.Fatalf("no readable memory cgroup for this process (mounts %v, /proc/self/cgroup %q)", mounts, b)
	return "", 0
}

func TestCgroupOfThisProcess(t *testing.T) {
	dir, version := ownMemoryCgroup(t)
	c, err := NewCgroup(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Version() != version {
		t.Errorf("%s: Version() = %d, want %d", dir, c.Version(), version)
	}
	usage, err := c.Read(context.Background())
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	rss, err := PID{Pid: os.Getpid()}.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The cgroup charges at least this process's resident memory.
	if usage < rss/2 {
		t.Errorf("%s: usage %d bytes is below half this process's RSS %d", c, usage, rss)
	}
	t.Logf("%s: %d bytes (cgroup v%d); own RSS %d", c, usage, version, rss)
}

func TestCgroupLaidOut(t *testing.T) {
	write := func(t *testing.T, files map[string]string) string {
		t.Helper()
		dir := t.TempDir()
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	tests := []struct {
		name        string
		files       map[string]string
		want        int64
		wantVersion int
		wantErr     string
	}{
		{name: "v2", files: map[string]string{"memory.current": "73400320\n", "memory.max": "max\n"}, want: 73400320, wantVersion: 2},
		{name: "v1", files: map[string]string{"memory.usage_in_bytes": "81788928\n", "memory.limit_in_bytes": "9223372036854771712\n"}, want: 81788928, wantVersion: 1},
		{name: "both prefers v2", files: map[string]string{"memory.current": "1\n", "memory.usage_in_bytes": "2\n"}, want: 1, wantVersion: 2},
		{name: "neither", files: map[string]string{"cpu.max": "max 100000\n"}, wantErr: "neither memory.current (cgroup v2) nor memory.usage_in_bytes (cgroup v1)"},
		{name: "garbage", files: map[string]string{"memory.current": "lots\n"}, wantErr: `want a byte count, got "lots\n"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := write(t, tt.files)
			c, err := NewCgroup(dir)
			var got int64
			if err == nil {
				got, err = c.Read(context.Background())
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %d, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || c.Version() != tt.wantVersion {
				t.Errorf("Read = %d (v%d), want %d (v%d)", got, c.Version(), tt.want, tt.wantVersion)
			}
		})
	}
}

func TestCommand(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	os.Setenv("SAMPLE_TEST_CHILD", "hold")
	c, err := Start([]string{os.Args[0], "-test.run=^$"}, w, os.Stderr)
	os.Unsetenv("SAMPLE_TEST_CHILD")
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop(5 * time.Second)
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("child said %q, %v", line, err)
	}
	rss, err := c.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rss < 64<<20 {
		t.Errorf("RSS of a child holding 64 MiB = %d", rss)
	}
	c.Stop(5 * time.Second)
	select {
	case <-c.Done():
	default:
		t.Fatal("Done not closed after Stop")
	}
	if !strings.Contains(c.State(), "signal: terminated") {
		t.Errorf("State() = %q, want it terminated by SIGTERM", c.State())
	}
	if !strings.Contains(c.String(), "pid ") {
		t.Errorf("String() = %q", c.String())
	}
}

func TestStartMissingCommand(t *testing.T) {
	_, err := Start([]string{filepath.Join(t.TempDir(), "nope")}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "starting ") {
		t.Fatalf("Start = %v, want a starting error", err)
	}
}

func TestPIDZombie(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Not reaped yet: wait until the kernel shows it as a zombie.
	statPath := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "stat")
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(statPath)
		if err == nil && strings.Contains(string(b), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("child never became a zombie: %q, %v", b, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, err := PID{Pid: cmd.Process.Pid}.Read(context.Background())
	if !errors.Is(err, ErrExited) {
		t.Errorf("Read of a zombie = %v, want ErrExited", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestCommandCountsForkedChild: the started process forks its work into a
// child holding 64 MiB; the command's reading counts the child, which
// reading the started process's own /proc entry does not.
func TestCommandCountsForkedChild(t *testing.T) {
	c := startChild(t, "fork")
	defer c.Stop(5 * time.Second)
	pids, err := c.PIDs()
	if err != nil || len(pids) != 2 {
		t.Fatalf("process tree %v, %v; want the parent and its child", pids, err)
	}
	// The child is killed first: the parent's SIGTERM would orphan it.
	defer syscall.Kill(pids[1], syscall.SIGKILL)
	tree, err := c.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	alone, err := PID{Pid: pids[0]}.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tree < 64<<20 || alone >= 64<<20 || tree <= alone {
		t.Errorf("tree RSS %d, the parent alone %d: want the tree to count the child's 64 MiB", tree, alone)
	}
	if !strings.Contains(c.String(), "descendants") {
		t.Errorf("String() = %q", c.String())
	}
}

func TestParentOf(t *testing.T) {
	for _, tt := range []struct {
		stat string
		want int
		ok   bool
	}{
		{"42 (pinbot) S 7 42 42 0", 7, true},
		{"42 (a) b) (c) R 9 1 1", 9, true},
		{"42 (x", 0, false},
		{"42 (x) S", 0, false},
		{"42 (x) S y", 0, false},
	} {
		got, ok := parentOf([]byte(tt.stat))
		if got != tt.want || ok != tt.ok {
			t.Errorf("parentOf(%q) = %d, %v; want %d, %v", tt.stat, got, ok, tt.want, tt.ok)
		}
	}
}

// startChild starts this test binary as a child in mode (TestMain) and
// waits for it to say ready.
func startChild(t *testing.T, mode string) *Command {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	t.Setenv("SAMPLE_TEST_CHILD", mode)
	c, err := Start([]string{os.Args[0], "-test.run=^$"}, w, os.Stderr)
	os.Unsetenv("SAMPLE_TEST_CHILD")
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil || line != "ready\n" {
		c.Stop(5 * time.Second)
		t.Fatalf("child said %q, %v", line, err)
	}
	return c
}
