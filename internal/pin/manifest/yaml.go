package manifest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var (
	yamlLineRE       = regexp.MustCompile(`line (\d+)`)
	yamlLinePrefixRE = regexp.MustCompile(`^line \d+: `)
)

// YAMLError turns a YAML error into a ReadError with the line the YAML
// library names in its message, offset by the line the document starts on.
func YAMLError(name string, startLine int, err error) error {
	line := 0
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		line += startLine - 1
	}
	msg := yamlLinePrefixRE.ReplaceAllString(strings.TrimPrefix(err.Error(), "yaml: "), "")
	return &ReadError{Path: name, Line: line, Err: fmt.Errorf("parsing YAML: %s", msg)}
}
