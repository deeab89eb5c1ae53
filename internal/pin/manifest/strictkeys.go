package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// The tools whose files pinbot reads (npm, pip, uv, Poetry, Cargo) match
// keys exactly; encoding/json and go-toml match struct fields ignoring case.
// A lock entry {"version": "1.4.0", "Version": "1.3.0"} reads as 1.3.0 to a
// Go struct and as 1.4.0 to npm (issue 17, item 3). DecodeJSON and
// decodeTOML therefore refuse, as a read error, any object with two keys
// that differ only in case and any key that differs only in case from a
// field the reader decodes.

// FoldKey is the case-folded form of a key, equal for keys that
// encoding/json would treat as the same field (including the Kelvin sign
// and long s, which fold to k and s).
func FoldKey(k string) string { return strings.ToLower(strings.ToUpper(k)) }

// fieldNames collects the keys (by tag) that the struct types reachable
// from t decode, folded form to exact form.
func fieldNames(t reflect.Type, tag string, out map[string]string, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get(tag), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[FoldKey(name)] = name
		fieldNames(f.Type, tag, out, seen)
	}
}

func FieldsOf(v any, tag string) map[string]string {
	out := map[string]string{}
	fieldNames(reflect.TypeOf(v), tag, out, map[reflect.Type]bool{})
	return out
}

// keyCheck remembers the keys of one object.
type keyCheck struct {
	fields map[string]string
	keys   map[string]string
}

func (c *keyCheck) add(k string) error {
	f := FoldKey(k)
	if exact, ok := c.fields[f]; ok && exact != k {
		return fmt.Errorf("key %q differs only in case from %q, which the tool reads; keys must match exactly", k, exact)
	}
	if prev, ok := c.keys[f]; ok && prev != k {
		return fmt.Errorf("keys %q and %q differ only in case; the tool reads one of them, a Go decoder may read the other", prev, k)
	}
	c.keys[f] = k
	return nil
}

// CheckJSONKeys walks a JSON document with the keys of fields (folded to
// exact, see FieldsOf) and returns the first offending key with its byte
// offset. Syntax errors are left to the decoder that follows.
func CheckJSONKeys(data []byte, fields map[string]string) (int64, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		obj     bool
		wantKey bool
		keys    keyCheck
	}
	var stack []*frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].obj {
			stack[n-1].wantKey = true
		}
	}
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) || err != nil {
			return 0, nil
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, &frame{obj: true, wantKey: true, keys: keyCheck{fields: fields, keys: map[string]string{}}})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].wantKey {
				stack[n-1].wantKey = false
				if err := stack[n-1].keys.add(v); err != nil {
					return off, err
				}
				continue
			}
			valueDone()
		default:
			valueDone()
		}
	}
}

// DecodeJSON is json.Unmarshal with exact keys (see above); errors are
// ReadErrors with the line.
func DecodeJSON(name string, data []byte, v any) error {
	return DecodeJSONFields(name, data, v, v)
}

// DecodeJSONFields is DecodeJSON for a reader that decodes parts of the
// document later into the structs of fieldsFrom.
func DecodeJSONFields(name string, data []byte, v, fieldsFrom any) error {
	if off, err := CheckJSONKeys(data, FieldsOf(fieldsFrom, "json")); err != nil {
		return &ReadError{Path: name, Line: LineAtOffset(data, off+1), Err: err}
	}
	if err := json.Unmarshal(data, v); err != nil {
		return JSONError(name, data, err)
	}
	return nil
}

// LineOfKey points a key error at the first line naming the offending key.
func LineOfKey(data []byte, err error) int {
	msg := err.Error()
	if i := strings.IndexByte(msg, '"'); i >= 0 {
		if j := strings.IndexByte(msg[i+1:], '"'); j >= 0 {
			return LineOf(data, msg[i+1:i+1+j])
		}
	}
	return 0
}

// CheckTOMLKeys walks a document decoded into maps and slices and returns
// the first offending key.
func CheckTOMLKeys(v any, fields map[string]string) error {
	switch x := v.(type) {
	case map[string]any:
		c := keyCheck{fields: fields, keys: map[string]string{}}
		for k := range x {
			if err := c.add(k); err != nil {
				return err
			}
		}
		for _, e := range x {
			if err := CheckTOMLKeys(e, fields); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := CheckTOMLKeys(e, fields); err != nil {
				return err
			}
		}
	case []map[string]any:
		for _, e := range x {
			if err := CheckTOMLKeys(e, fields); err != nil {
				return err
			}
		}
	}
	return nil
}

// JSONError turns an encoding/json error into a ReadError with its line.
func JSONError(name string, data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &ReadError{Path: name, Line: LineAtOffset(data, se.Offset), Err: fmt.Errorf("parsing JSON: %w", err)}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &ReadError{Path: name, Line: LineAtOffset(data, te.Offset), Err: fmt.Errorf("parsing JSON: %w", err)}
	}
	return &ReadError{Path: name, Err: fmt.Errorf("parsing JSON: %w", err)}
}
