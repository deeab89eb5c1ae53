package action

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// composite is the part of an action.yml this runner reads.
type composite struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []step `yaml:"steps"`
	} `yaml:"runs"`
}

type step struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	Run   string            `yaml:"run"`
	Uses  string            `yaml:"uses"`
	With  map[string]string `yaml:"with"`
}

// run is one execution of the action by the runner.
type run struct {
	outputs map[string]string
	// ran, skipped and failed name the steps by name.
	ran, skipped, failed []string
	// uses are the steps that call other actions, with their evaluated
	// inputs; the runner does not run them.
	uses    map[string]map[string]string
	summary string
	log     string
}

// runAction runs the composite action in dir the way GitHub's runner does,
// for the expressions this action uses: each run step with bash -e -o
// pipefail, its env evaluated, GITHUB_OUTPUT fresh per step and read back
// into steps.<id>.outputs, one GITHUB_STEP_SUMMARY, if: conditions with
// success() and always(). Steps that use other actions are recorded, not run.
// An expression the runner does not understand fails the test.
func yamlUnmarshal(b []byte, v any) error { return yaml.Unmarshal(b, v) }

func runAction(t *testing.T, dir string, inputs map[string]string, workdir string) run {
	t.Helper()
	return runActionAt(t, dir, "", inputs, workdir)
}

// runActionAt is runAction for an action used at ref (github.action_ref:
// the tag in "uses: owner/repo/path@ref").
func runActionAt(t *testing.T, dir, ref string, inputs map[string]string, workdir string) run {
	t.Helper()
	return runActionIn(t, dir, runner{ref: ref}, inputs, workdir)
}

// runner is what the runner gives an action beyond its inputs: the ref it
// is used at (github.action_ref), the job's token (github.token) and the
// runner's default variables (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, ...),
// which every step sees.
type runner struct {
	ref, token string
	env        map[string]string
}

// runActionIn is runAction with the runner's context rc.
func runActionIn(t *testing.T, dir string, rc runner, inputs map[string]string, workdir string) run {
	t.Helper()
	ref := rc.ref
	b, err := os.ReadFile(filepath.Join(dir, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a composite
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using is %q, want composite", a.Runs.Using)
	}
	for k := range inputs {
		if _, ok := a.Inputs[k]; !ok {
			t.Fatalf("the action has no input %q", k)
		}
	}
	ctx := &exprContext{inputs: map[string]string{}, steps: map[string]map[string]string{}, github: map[string]string{"action_ref": ref, "action_path": dir, "token": rc.token}}
	for k, v := range a.Inputs {
		ctx.inputs[k] = v.Default
	}
	for k, v := range inputs {
		ctx.inputs[k] = v
	}
	tmp := t.TempDir()
	summary := filepath.Join(tmp, "step-summary.md")
	runnerTemp := filepath.Join(tmp, "runner-temp")
	if err := os.Mkdir(runnerTemp, 0o755); err != nil {
		t.Fatal(err)
	}
	r := run{outputs: map[string]string{}, uses: map[string]map[string]string{}}
	var log strings.Builder
	for i, s := range a.Runs.Steps {
		cond := s.If
		if cond == "" {
			cond = "success()"
		}
		if ok := truthy(ctx.eval(t, strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(cond), "${{"), "}}"))); !ok {
			r.skipped = append(r.skipped, s.Name)
			continue
		}
		if s.Uses != "" {
			with := map[string]string{}
			for k, v := range s.With {
				with[k] = ctx.subst(t, v)
			}
			r.uses[s.Uses] = with
			r.ran = append(r.ran, s.Name)
			continue
		}
		if s.Shell != "bash" {
			t.Fatalf("step %q: shell %q, want bash", s.Name, s.Shell)
		}
		if strings.Contains(s.Run, "${{") {
			t.Fatalf("step %q splices an expression into its script; pass it through env", s.Name)
		}
		out := filepath.Join(tmp, fmt.Sprintf("output-%d", i))
		if err := os.WriteFile(out, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
		cmd.Dir = workdir
		arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
		cmd.Env = append(os.Environ(), "GITHUB_ACTION_PATH="+dir, "GITHUB_OUTPUT="+out, "GITHUB_STEP_SUMMARY="+summary,
			"RUNNER_TEMP="+runnerTemp, "RUNNER_OS=Linux", "RUNNER_ARCH="+arch, "GITHUB_ACTIONS=true")
		for k, v := range rc.env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		for k, v := range s.Env {
			cmd.Env = append(cmd.Env, k+"="+ctx.subst(t, v))
		}
		b, err := cmd.CombinedOutput()
		fmt.Fprintf(&log, "== %s\n%s", s.Name, b)
		r.ran = append(r.ran, s.Name)
		if err != nil {
			r.failed = append(r.failed, s.Name)
			ctx.failed = true
		}
		if s.ID != "" {
			ctx.steps[s.ID] = readOutputs(t, out)
		}
	}
	for k, v := range a.Outputs {
		r.outputs[k] = ctx.subst(t, v.Value)
	}
	if b, err := os.ReadFile(summary); err == nil {
		r.summary = string(b)
	}
	r.log = log.String()
	return r
}

// readOutputs reads a $GITHUB_OUTPUT file: name=value lines and
// name<<DELIMITER blocks.
func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var v []string
			for sc.Scan() && sc.Text() != delim {
				v = append(v, sc.Text())
			}
			m[name] = strings.Join(v, "\n")
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: malformed output line %q", path, line)
		}
		m[name] = value
	}
	return m
}

// exprContext evaluates the GitHub expressions the action uses.
type exprContext struct {
	inputs map[string]string
	steps  map[string]map[string]string
	github map[string]string
	failed bool
}

var exprRe = regexp.MustCompile(`\$\{\{(.*?)\}\}`)

// subst replaces every ${{ ... }} in s by its value.
func (c *exprContext) subst(t *testing.T, s string) string {
	t.Helper()
	return exprRe.ReplaceAllStringFunc(s, func(m string) string {
		return fmt.Sprint(c.eval(t, exprRe.FindStringSubmatch(m)[1]))
	})
}

// eval evaluates e: || and && (returning operands, as GitHub does),
// == and != on strings, 'literals', inputs.X, steps.ID.outputs.X,
// github.X, success() and always().
func (c *exprContext) eval(t *testing.T, e string) any {
	t.Helper()
	e = strings.TrimSpace(e)
	if parts := splitTop(e, "||"); len(parts) > 1 {
		var v any
		for _, p := range parts {
			if v = c.eval(t, p); truthy(v) {
				return v
			}
		}
		return v
	}
	if parts := splitTop(e, "&&"); len(parts) > 1 {
		var v any
		for _, p := range parts {
			if v = c.eval(t, p); !truthy(v) {
				return v
			}
		}
		return v
	}
	for _, op := range []string{"==", "!="} {
		if parts := splitTop(e, op); len(parts) == 2 {
			eq := fmt.Sprint(c.eval(t, parts[0])) == fmt.Sprint(c.eval(t, parts[1]))
			return eq == (op == "==")
		}
	}
	switch {
	case e == "always()":
		return true
	case e == "success()":
		return !c.failed
	case e == "failure()":
		return c.failed
	case len(e) >= 2 && e[0] == '\'' && e[len(e)-1] == '\'':
		return strings.ReplaceAll(e[1:len(e)-1], "''", "'")
	case strings.HasPrefix(e, "inputs."):
		v, ok := c.inputs[strings.TrimPrefix(e, "inputs.")]
		if !ok {
			t.Fatalf("expression %q names an undeclared input", e)
		}
		return v
	case strings.HasPrefix(e, "steps."):
		p := strings.Split(e, ".")
		if len(p) != 4 || p[2] != "outputs" {
			t.Fatalf("expression %q: want steps.ID.outputs.NAME", e)
		}
		return c.steps[p[1]][p[3]]
	case strings.HasPrefix(e, "github."):
		v, ok := c.github[strings.TrimPrefix(e, "github.")]
		if !ok {
			t.Fatalf("expression %q: the runner has no such github context value", e)
		}
		return v
	}
	t.Fatalf("expression %q: not understood by the test runner", e)
	return nil
}

// splitTop splits e at op outside quotes.
func splitTop(e, op string) []string {
	var parts []string
	quoted := false
	last := 0
	for i := 0; i < len(e); i++ {
		if e[i] == '\'' {
			quoted = !quoted
		}
		if !quoted && strings.HasPrefix(e[i:], op) {
			parts = append(parts, e[last:i])
			i += len(op) - 1
			last = i + 1
		}
	}
	return append(parts, e[last:])
}

func truthy(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case string:
		return v != ""
	case nil:
		return false
	}
	return true
}
