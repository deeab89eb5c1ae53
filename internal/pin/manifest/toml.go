package manifest

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// DecodeTOML decodes data into v, turning a syntax or type error into a
// ReadError with the line.
//
// Keys are matched exactly (see strictkeys.go): the document is first
// decoded into maps, and a key differing only in case from another key of
// its table or from a field of v is a ReadError.
func DecodeTOML(name string, data []byte, v any) error {
	var generic map[string]any
	if err := toml.Unmarshal(data, &generic); err == nil {
		if err := CheckTOMLKeys(generic, FieldsOf(v, "toml")); err != nil {
			return &ReadError{Path: name, Line: LineOfKey(data, err), Err: err}
		}
		if m, ok := v.(*map[string]any); ok {
			*m = generic
			return nil
		}
	}
	if err := toml.Unmarshal(data, v); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, _ := de.Position()
			return &ReadError{Path: name, Line: row, Err: fmt.Errorf("parsing TOML: %s", de.Error())}
		}
		return &ReadError{Path: name, Err: fmt.Errorf("parsing TOML: %w", err)}
	}
	return nil
}

func LastKey(section string) string {
	if i := strings.LastIndexByte(section, '.'); i >= 0 {
		return section[i+1:]
	}
	return section
}

// CompactTOML renders a decoded TOML value deterministically on one line.
func CompactTOML(v any) string {
	switch t := v.(type) {
	case map[string]any:
		var parts []string
		for _, k := range SortedKeys(t) {
			parts = append(parts, k+"="+CompactTOML(t[k]))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		var parts []string
		for _, x := range t {
			parts = append(parts, CompactTOML(x))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case []map[string]any:
		var parts []string
		for _, x := range t {
			parts = append(parts, CompactTOML(x))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case string:
		return t
	}
	return fmt.Sprint(v)
}

func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func HasAny(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}
