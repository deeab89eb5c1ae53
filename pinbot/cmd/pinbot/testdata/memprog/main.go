// Command memprog is a process with a known memory behaviour, for the tests
// of 'pinbot verify-memory': it leaks, holds steady, grows then plateaus, or
// exits early, or forks a leaking child, as its first argument says.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

var (
	kept      [][]byte
	keptBytes int
)

// touched allocates n bytes and writes every page, so they count in the RSS.
func touched(n int) []byte {
	b := make([]byte, n)
	for i := 0; i < n; i += 4096 {
		b[i] = 1
	}
	return b
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: memprog leak|steady|plateau|exit|forkleak")
		os.Exit(2)
	}
	mode := os.Args[1]
	if mode == "forkleak" {
		// The work forked into a child: the parent stays small while its
		// child leaks, as code dodging a single /proc/PID would.
		child := exec.Command(os.Args[0], "leak")
		child.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "memprog:", err)
			os.Exit(2)
		}
		mode = "steady"
	}
	start := time.Now()
	tick := time.NewTicker(10 * time.Millisecond)
	// A safety net: never outlive a test that forgot to stop us.
	deadline := time.After(2 * time.Minute)
	var sink []byte
	for i := 0; ; i++ {
		select {
		case <-deadline:
			os.Exit(0)
		case <-tick.C:
		}
		// Targets follow the wall clock, not the ticks, so that a busy
		// machine that delays ticks does not change the rates.
		elapsed := time.Since(start)
		switch mode {
		case "leak":
			// Keep about 4 MiB a second, in 40 KiB pieces.
			for keptBytes < int(elapsed.Seconds()*4*(1<<20)) {
				kept = append(kept, touched(40<<10))
				keptBytes += 40 << 10
			}
		case "steady":
			// Allocate 1 MiB every tick and drop it.
			sink = touched(1 << 20)
		case "plateau":
			// Grow to 40 MiB over the first 300 ms, then hold it. No
			// garbage: with 40 MiB live, churn would let the heap grow
			// towards twice that before the collector runs.
			for keptBytes < min(int(elapsed.Seconds()/0.3*40*(1<<20)), 40<<20) {
				kept = append(kept, touched(1<<20))
				keptBytes += 1 << 20
			}
		case "exit":
			sink = touched(256 << 10)
			if elapsed > 700*time.Millisecond {
				fmt.Fprintln(os.Stderr, "memprog: exiting early on purpose")
				os.Exit(2)
			}
		default:
			fmt.Fprintf(os.Stderr, "memprog: unknown mode %q\n", mode)
			os.Exit(2)
		}
		_ = sink
	}
}
