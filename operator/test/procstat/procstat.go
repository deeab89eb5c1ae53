// Package procstat reads what the benchmarks measure from /proc, outside
// the code under test: a process's CPU time and resident memory, and the
// CPU time the whole machine spent. Linux only; the parsers are pure and
// table tested.
package procstat

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on every
// Linux architecture Go builds for (sysconf(_SC_CLK_TCK)).
const clockTicks = 100

// CPU returns the CPU time (user and system) pid has used so far.
func CPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return cpuTime(b)
}

// RSS returns pid's resident memory in bytes.
func RSS(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	return rssBytes(b)
}

// MachineCPU returns the CPU time every processor of the machine has spent
// busy since boot (all processes, the kernel included; idle and I/O wait
// not counted). Its growth over a window divided by the window's length is
// the number of cores kept busy.
func MachineCPU() (time.Duration, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	return machineBusy(b)
}

// cpuTime returns utime+stime of a /proc/<pid>/stat line as a duration.
func cpuTime(stat []byte) (time.Duration, error) {
	// pid (comm) state ppid ...; comm may hold spaces and parentheses, so
	// fields are counted after the last ')'. utime and stime are fields 14
	// and 15 of the line, 12 and 13 after comm.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("/proc stat line without a ')' after the command name")
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc stat line has %d fields after the command name, want at least 13", len(f))
	}
	return ticks("/proc/<pid>/stat utime/stime", f[11:13])
}

// machineBusy returns the busy time of the "cpu" line of /proc/stat: user,
// nice, system, irq, softirq and steal (guest time is already inside user
// and nice; idle and iowait are not busy).
func machineBusy(stat []byte) (time.Duration, error) {
	for line := range strings.Lines(string(stat)) {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "cpu" {
			continue
		}
		if len(f) < 9 {
			return 0, fmt.Errorf("/proc/stat: the cpu line has %d times, want at least 8 (user to steal)", len(f)-1)
		}
		// user nice system idle iowait irq softirq steal
		return ticks("/proc/stat cpu", []string{f[1], f[2], f[3], f[6], f[7], f[8]})
	}
	return 0, errors.New("/proc/stat has no cpu line")
}

func ticks(what string, fields []string) (time.Duration, error) {
	var n uint64
	for _, s := range fields {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %q: %w", what, s, err)
		}
		n += v
	}
	return time.Duration(n) * time.Second / clockTicks, nil
}

// rssBytes returns VmRSS of a /proc/<pid>/status text.
func rssBytes(status []byte) (uint64, error) {
	for line := range strings.Lines(string(status)) {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("/proc status: VmRSS line %q, want \"<n> kB\"", strings.TrimSpace(line))
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc status: VmRSS %q: %w", f[0], err)
		}
		return n * 1024, nil
	}
	return 0, errors.New("/proc status has no VmRSS line (a zombie or kernel thread?)")
}

// Window is what one measured window cost: its wall time, the machine's
// busy time and the CPU time of each process measured, in the order they
// were given to Meter.Start.
type Window struct {
	Wall, Machine time.Duration
	Procs         []time.Duration
}

// Meter measures one window at a time (a load, not the waits between
// loads).
type Meter struct {
	pids     []int
	t0       time.Time
	machine0 time.Duration
	procs0   []time.Duration
}

// Start begins a window over the machine and pids.
func (m *Meter) Start(pids ...int) error {
	m.pids, m.t0 = pids, time.Now()
	var err error
	if m.machine0, err = MachineCPU(); err != nil {
		return fmt.Errorf("the machine's CPU: %w", err)
	}
	m.procs0, err = m.cpus()
	return err
}

// Stop ends the window Start began and returns it.
func (m *Meter) Stop() (Window, error) {
	w := Window{Wall: time.Since(m.t0)}
	machine, err := MachineCPU()
	if err != nil {
		return w, fmt.Errorf("the machine's CPU: %w", err)
	}
	procs, err := m.cpus()
	if err != nil {
		return w, err
	}
	w.Machine = machine - m.machine0
	for i, c := range procs {
		w.Procs = append(w.Procs, c-m.procs0[i])
	}
	return w, nil
}

func (m *Meter) cpus() ([]time.Duration, error) {
	out := make([]time.Duration, len(m.pids))
	for i, pid := range m.pids {
		c, err := CPU(pid)
		if err != nil {
			return nil, fmt.Errorf("CPU of process %d: %w", pid, err)
		}
		out[i] = c
	}
	return out, nil
}
