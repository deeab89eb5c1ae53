package sample

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Command is a process the verification starts itself and samples the RSS
// of, with every process it forks (Tree).
type Command struct {
	Tree
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	args []string
}

// Start starts args[0] with the rest as its arguments, its output going to
// stdout and stderr.
func Start(args []string, stdout, stderr io.Writer) (*Command, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("no command given")
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", args[0], err)
	}
	c := &Command{Tree: Tree{Pid: cmd.Process.Pid}, cmd: cmd, done: make(chan struct{}), args: args}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// Done is closed when the process has exited.
func (c *Command) Done() <-chan struct{} { return c.done }

// Err is how the process ended (nil for exit status 0); valid after Done.
func (c *Command) Err() error { return c.err }

// State describes how the process ended; valid after Done.
func (c *Command) State() string {
	if c.cmd.ProcessState == nil {
		return "still running"
	}
	return c.cmd.ProcessState.String()
}

// Stop asks the process to end with SIGTERM, kills it after grace, and
// waits for it.
func (c *Command) Stop(grace time.Duration) {
	select {
	case <-c.done:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-c.done:
	case <-t.C:
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// Read returns the process's RSS.
func (c *Command) Read(ctx context.Context) (int64, error) { return c.Tree.Read(ctx) }

// String names the command.
func (c *Command) String() string {
	return fmt.Sprintf("command %q (pid %d and its descendants, RSS of the process tree from /proc)", strings.Join(c.args, " "), c.Pid)
}
