package sample

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain doubles as a child process for the tests that need a real one to
// watch: with SAMPLE_TEST_CHILD=hold it touches 64 MiB and waits to be killed.
func TestMain(m *testing.M) {
	if os.Getenv("SAMPLE_TEST_CHILD") == "hold" {
		b := make([]byte, 64<<20)
		for i := range b {
			b[i] = byte(i)
		}
		os.Stdout.WriteString("ready\n")
		time.Sleep(time.Minute)
		os.Stdout.Write(b[len(b)-1:])
		os.Exit(0)
	}
	if os.Getenv("SAMPLE_TEST_CHILD") == "fork" {
		// A small parent whose child does the work: the child holds 64 MiB
		// and says ready through this process's stdout.
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "SAMPLE_TEST_CHILD=hold")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Start(); err != nil {
			os.Exit(2)
		}
		cmd.Wait()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
