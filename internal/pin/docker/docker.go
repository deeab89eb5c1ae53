package docker

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"

	"github.com/kubetenant/kubetenant/internal/pin/manifest"

	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerfile/shell"
)

// readDockerfile reads the base images of a Dockerfile's FROM lines, manifest.Parsed
// with BuildKit's own parser (ADR 0203), so that the escape directive, line
// continuations, comments and heredoc bodies (COPY <<EOF ... EOF) are what
// BuildKit sees, not lookalikes (issue 17, items 5 and 13). FROM expands
// only the ARGs declared before the first FROM, with BuildKit's shell
// lexer, as BuildKit does; a variable without a value stays as written.
// "--platform" flags and "AS name" are dropped; FROM lines that name an
// earlier stage or "scratch" are skipped. Each image's value is "tag",
// "tag@digest" or "@digest"; an image without either is "latest". Two stages
// that use one image at different versions give a joined value. Images
// that COPY --from=IMAGE and RUN --mount=from=IMAGE copy or mount files
// from are read too (a stage's name or index is no image; issue 36).
func readDockerfile(name string, data []byte) (manifest.Parsed, error) {
	deps, err := fromImages(name, data, nil, nil)
	if err != nil {
		return manifest.Parsed{}, err
	}
	return manifest.Parsed{Deps: deps}, nil
}

// fromImages returns the images of a Dockerfile's FROM lines; buildArgs
// (Compose's build.args, docker build --build-arg) override the values of
// the ARGs declared before the first FROM, as BuildKit applies them, and
// contexts are the named build contexts (Compose's
// build.additional_contexts), which BuildKit uses instead of an image of
// that name.
func fromImages(name string, data []byte, buildArgs map[string]string, contexts map[string]bool) ([]manifest.Dep, error) {
	res, err := parser.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, &manifest.ReadError{Path: name, Err: fmt.Errorf("parsing Dockerfile: %w", err)}
	}
	lex := shell.NewLex(res.EscapeToken)
	var meta []string // KEY=value of the ARGs before the first FROM
	stages := map[string]bool{}
	// Every stage name, for COPY --from and RUN --mount=from, which BuildKit
	// resolves against all stages of the file, not only the earlier ones.
	named := map[string]bool{}
	for _, n := range res.AST.Children {
		if !strings.EqualFold(n.Value, "from") {
			continue
		}
		var args []string
		for x := n.Next; x != nil; x = x.Next {
			args = append(args, x.Value)
		}
		if len(args) == 3 && strings.EqualFold(args[1], "AS") {
			named[strings.ToLower(args[2])] = true
		}
	}
	seenFrom := false
	nstages := 0
	var out []manifest.Dep
	// fromImage reads the image of a COPY --from or RUN --mount from= value:
	// a stage's name or index is no image; the value is expanded with the
	// ARGs before the first FROM, and one naming a variable nothing sets is
	// an error (fail closed: the image is chosen outside the repository).
	fromImage := func(n *parser.Node, flag, v string) error {
		if w, err := lex.ProcessWordWithMatches(v, shell.EnvsFromSlice(meta)); err == nil && len(w.Unmatched) == 0 && w.Result != "" {
			v = w.Result
		} else if strings.Contains(v, "$") {
			return &manifest.ReadError{Path: name, Line: n.StartLine, Err: fmt.Errorf("%s %s=%s: the image depends on a variable no ARG before the first FROM sets; pinbot cannot tell which image it is", strings.ToUpper(n.Value), flag, v)}
		}
		if named[strings.ToLower(v)] || contexts[v] || isStageIndex(v, nstages) || strings.EqualFold(v, "scratch") {
			return nil
		}
		img, val, err := ParseImageRef(v)
		if err != nil {
			return &manifest.ReadError{Path: name, Line: n.StartLine, Err: fmt.Errorf("%s %s=%s: %w", strings.ToUpper(n.Value), flag, v, err)}
		}
		out = append(out, manifest.Dep{Eco: Name, Pkg: img, Value: val})
		return nil
	}
	for _, n := range res.AST.Children {
		var args []string
		for x := n.Next; x != nil; x = x.Next {
			args = append(args, x.Value)
		}
		switch strings.ToLower(n.Value) {
		case "arg":
			if seenFrom {
				continue // a stage's ARG never reaches a FROM
			}
			for _, a := range args {
				k, v, ok := strings.Cut(a, "=")
				if bv, set := buildArgs[k]; set {
					meta = append(meta, k+"="+bv)
					continue
				}
				if !ok {
					continue // declared without a default: empty unless a build arg sets it
				}
				w, err := lex.ProcessWordWithMatches(v, shell.EnvsFromSlice(meta))
				if err == nil {
					v = w.Result
				}
				meta = append(meta, k+"="+v)
			}
		case "copy":
			for _, f := range n.Flags {
				if v, ok := strings.CutPrefix(f, "--from="); ok {
					if err := fromImage(n, "--from", v); err != nil {
						return nil, err
					}
				}
			}
		case "run":
			for _, f := range n.Flags {
				v, ok := strings.CutPrefix(f, "--mount=")
				if !ok {
					continue
				}
				from, err := mountFrom(v)
				if err != nil {
					return nil, &manifest.ReadError{Path: name, Line: n.StartLine, Err: fmt.Errorf("RUN --mount=%s: %w", v, err)}
				}
				if from != "" {
					if err := fromImage(n, "--mount from", from); err != nil {
						return nil, err
					}
				}
			}
		case "from":
			seenFrom = true
			nstages++
			if len(args) == 0 {
				return nil, &manifest.ReadError{Path: name, Line: n.StartLine, Err: fmt.Errorf("FROM without an image")}
			}
			alias := ""
			if len(args) == 3 && strings.EqualFold(args[1], "AS") {
				alias = strings.ToLower(args[2])
			} else if len(args) != 1 {
				return nil, &manifest.ReadError{Path: name, Line: n.StartLine, Err: fmt.Errorf("FROM %q: want an image and an optional AS name", strings.Join(args, " "))}
			}
			ref := args[0]
			if w, err := lex.ProcessWordWithMatches(ref, shell.EnvsFromSlice(meta)); err == nil && len(w.Unmatched) == 0 && w.Result != "" {
				ref = w.Result
			}
			earlier := stages[strings.ToLower(ref)]
			if alias != "" {
				stages[alias] = true
			}
			if strings.EqualFold(ref, "scratch") || earlier || contexts[ref] {
				continue
			}
			img, val, err := ParseImageRef(ref)
			if err != nil {
				return nil, &manifest.ReadError{Path: name, Line: n.StartLine, Err: err}
			}
			out = append(out, manifest.Dep{Eco: Name, Pkg: img, Value: val})
		}
	}
	return out, nil
}

// isStageIndex reports a --from value that is the index of a stage
// ("0"), which BuildKit accepts for stages before the instruction.
func isStageIndex(v string, stages int) bool {
	i, err := strconv.Atoi(v)
	return err == nil && i >= 0 && i < stages
}

// mountFrom returns the from= of a RUN --mount value, read as BuildKit
// reads it: comma-separated key=value fields, CSV-quoted, keys in any case.
func mountFrom(v string) (string, error) {
	r := csv.NewReader(strings.NewReader(v))
	fields, err := r.Read()
	if err != nil {
		return "", fmt.Errorf("reading the mount's fields: %w", err)
	}
	from := ""
	for _, f := range fields {
		k, val, _ := strings.Cut(f, "=")
		if strings.EqualFold(strings.TrimSpace(k), "from") {
			from = strings.TrimSpace(val)
		}
	}
	return from, nil
}

// ParseImageRef splits "registry/name:tag@digest" into the normalised image
// name and "tag", "tag@digest", "@digest" or "latest".
func ParseImageRef(ref string) (img, val string, err error) {
	ref = strings.TrimSpace(ref)
	name, digest, _ := strings.Cut(ref, "@")
	tag := ""
	// A ":" after the last "/" starts the tag; one before is a registry port.
	if i := strings.LastIndexByte(name, ':'); i > strings.LastIndexByte(name, '/') {
		name, tag = name[:i], name[i+1:]
	}
	if name == "" || strings.ContainsAny(name, " \t") {
		return "", "", fmt.Errorf("invalid image reference %q", ref)
	}
	switch {
	case digest != "" && tag != "":
		val = tag + "@" + digest
	case digest != "":
		val = "@" + digest
	case tag != "":
		val = tag
	default:
		val = "latest"
	}
	return Normalize(name), val, nil
}
