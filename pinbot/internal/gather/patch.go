package gather

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// applyPatch applies the hunks of a unified diff (as GitHub's files API
// shows them, without file headers) to old. Callers check the result
// against the blob SHA, so a patch it misreads only costs a read.
func applyPatch(old []byte, patch string) ([]byte, error) {
	src := splitKeep(string(old))
	lines := strings.Split(strings.TrimSuffix(patch, "\n"), "\n")
	const noEOL = `\ No newline at end of file`
	var out strings.Builder
	pos := 0 // next unconsumed line of src
	for i := 0; i < len(lines); i++ {
		var oldStart, oldLen, newStart, newLen int
		if err := parseHunk(lines[i], &oldStart, &oldLen, &newStart, &newLen); err != nil {
			return nil, err
		}
		start := oldStart - 1
		if oldLen == 0 {
			start = oldStart
		}
		if start < pos || start > len(src) {
			return nil, errors.New("patch: hunks out of order")
		}
		for _, l := range src[pos:start] {
			out.WriteString(l)
		}
		pos = start
		for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "@@ ") {
			i++
			l := lines[i]
			if l == noEOL {
				continue
			}
			if l == "" {
				l = " " // a blank context line may lose its space
			}
			text := l[1:] + "\n"
			if i+1 < len(lines) && lines[i+1] == noEOL {
				text = l[1:]
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(src) || src[pos] != text {
					return nil, errors.New("patch: context does not match")
				}
				pos++
				if l[0] == ' ' {
					out.WriteString(text)
				}
			case '+':
				out.WriteString(text)
			default:
				return nil, fmt.Errorf("patch: unexpected line %q", l)
			}
		}
	}
	for _, l := range src[pos:] {
		out.WriteString(l)
	}
	return []byte(out.String()), nil
}

// splitKeep splits s into lines, each keeping its newline.
func splitKeep(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func parseHunk(h string, os, ol, ns, nl *int) error {
	// "@@ -a,b +c,d @@ section"
	f := strings.Fields(h)
	if len(f) < 4 || f[0] != "@@" || f[3] != "@@" && !strings.HasPrefix(f[3], "@@") {
		return fmt.Errorf("patch: bad hunk header %q", h)
	}
	parse := func(s string, start, n *int) error {
		a, b, ok := strings.Cut(s[1:], ",")
		var err error
		if *start, err = strconv.Atoi(a); err != nil {
			return fmt.Errorf("patch: bad hunk header %q", h)
		}
		*n = 1
		if ok {
			if *n, err = strconv.Atoi(b); err != nil {
				return fmt.Errorf("patch: bad hunk header %q", h)
			}
		}
		return nil
	}
	if err := parse(f[1], os, ol); err != nil {
		return err
	}
	return parse(f[2], ns, nl)
}
