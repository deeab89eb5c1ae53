package procstat

import (
	"os"
	"strings"
	"testing"
	"time"
)

// parseCase is one input of a /proc parser: an error containing err when
// it is set, else want.
type parseCase[T comparable] struct {
	name, in string
	want     T
	err      string
}

// run runs parse on each case as a subtest.
func run[T comparable](t *testing.T, fn string, parse func([]byte) (T, error), cases []parseCase[T]) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parse([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("%s = %v, %v; want an error containing %q", fn, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("%s = %v, %v; want %v", fn, got, err, tc.want)
			}
		})
	}
}

func TestCPUTime(t *testing.T) {
	run(t, "cpuTime", cpuTime, []parseCase[time.Duration]{
		{
			name: "kube-apiserver",
			in:   "4242 (kube-apiserver) S 1 4242 4242 0 -1 4194560 51234 0 12 0 1234 566 0 0 20 0 12 0 98765 1234567890 65432 18446744073709551615",
			want: 18 * time.Second, // (1234 + 566) ticks at 100 Hz
		},
		{
			name: "a command name with spaces and parentheses",
			in:   "7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 250 50 0 0 20 0 1 0 1 1 1",
			want: 3 * time.Second,
		},
		{name: "no command name", in: "7 a R 1", err: "without a ')'"},
		{name: "too short", in: "7 (x) R 1 2 3", err: "at least 13"},
		{name: "not a number", in: "7 (x) R 1 7 7 0 -1 0 0 0 0 0 ten 50 0", err: "utime/stime"},
	})
}

func TestRSSBytes(t *testing.T) {
	run(t, "rssBytes", rssBytes, []parseCase[uint64]{
		{"status", "Name:\tkube-apiserver\nVmPeak:\t 900000 kB\nVmRSS:\t  286208 kB\nRssAnon:\t 200000 kB\n", 286208 * 1024, ""},
		{"no VmRSS", "Name:\tkthreadd\nState:\tS (sleeping)\n", 0, "no VmRSS"},
		{"another unit", "VmRSS:\t 12 MB\n", 0, "want"},
		{"not a number", "VmRSS:\t twelve kB\n", 0, "VmRSS"},
	})
}

func TestMachineBusy(t *testing.T) {
	run(t, "machineBusy", machineBusy, []parseCase[time.Duration]{
		{
			name: "two cores",
			// user nice system idle iowait irq softirq steal guest guest_nice
			in:   "cpu  1000 20 300 90000 70 5 6 7 400 0\ncpu0 500 10 150 45000 35 2 3 3 200 0\ncpu1 500 10 150 45000 35 3 3 4 200 0\nintr 1 2 3\n",
			want: (1000 + 20 + 300 + 5 + 6 + 7) * 10 * time.Millisecond,
		},
		{name: "an old kernel without steal", in: "cpu  1 2 3 4 5 6 7\n", err: "want at least 8"},
		{name: "no cpu line", in: "intr 1 2 3\nctxt 4\n", err: "no cpu line"},
		{name: "not a number", in: "cpu  1 2 x 4 5 6 7 8\n", err: "/proc/stat cpu"},
	})
}

// TestThisMachine reads this process's and the machine's figures: the
// parsers agree with the kernel's current format. It spins until the
// kernel has counted a tick of its CPU time (10 ms), at most 10 s.
func TestThisMachine(t *testing.T) {
	deadline := time.Now().Add(10 * time.Second)
	var c time.Duration
	var err error
	for n := 0; c == 0 && err == nil && time.Now().Before(deadline); n++ {
		c, err = CPU(os.Getpid())
	}
	if err != nil || c <= 0 {
		t.Errorf("CPU(self) = %v, %v; want a positive time", c, err)
	}
	if r, err := RSS(os.Getpid()); err != nil || r < 1<<20 {
		t.Errorf("RSS(self) = %v, %v; want at least 1 MiB", r, err)
	}
	if m, err := MachineCPU(); err != nil || m < c {
		t.Errorf("MachineCPU = %v, %v; want at least this process's %v", m, err, c)
	}
}

// TestMeter: a window over this process while it spins holds its CPU
// time and the machine's busy time, which counts in ticks and so may lag
// a process's own time by a few ticks per core (slack 50 ms); a process
// that is gone is an error naming it.
func TestMeter(t *testing.T) {
	const spin, slack = 300 * time.Millisecond, 50 * time.Millisecond
	var m Meter
	if err := m.Start(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		if c, _ := CPU(os.Getpid()); c >= m.procs0[0]+spin {
			break
		}
	}
	w, err := m.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Procs) != 1 || w.Procs[0] < spin || w.Machine < w.Procs[0]-slack || w.Wall < w.Procs[0]/2 {
		t.Errorf("window = %+v; want this process's %v or more, within the machine's busy time (slack %v)", w, spin, slack)
	}
	if err := m.Start(1 << 30); err == nil || !strings.Contains(err.Error(), "process 1073741824") {
		t.Errorf("Start(a pid that does not exist) = %v; want an error naming it", err)
	}
}
