package botcfg

import (
	"errors"
	"fmt"
)

// span is a byte range [from, to) of a JSON text.
type span struct{ from, to int }

// member is one key and value of a JSON object.
type member struct {
	key       string
	keySpan   span
	valueSpan span
}

// The scanner below finds where values are; it runs only on text that
// encoding/json accepted (json.Valid), so it needs no error recovery, and
// it reports offsets the way the splicer needs them, which encoding/json's
// decoder does not.

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanValue returns the end of the value starting at b[i].
func scanValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errors.New("unexpected end of JSON")
	}
	switch b[i] {
	case '"':
		return scanString(b, i)
	case '{', '[':
		closer := byte('}')
		if b[i] == '[' {
			closer = ']'
		}
		j := skipSpace(b, i+1)
		if j < len(b) && b[j] == closer {
			return j + 1, nil
		}
		for {
			if closer == '}' {
				end, err := scanString(b, j)
				if err != nil {
					return 0, err
				}
				j = skipSpace(b, end)
				if j >= len(b) || b[j] != ':' {
					return 0, fmt.Errorf("offset %d: want ':'", j)
				}
				j = skipSpace(b, j+1)
			}
			end, err := scanValue(b, j)
			if err != nil {
				return 0, err
			}
			j = skipSpace(b, end)
			if j >= len(b) {
				return 0, errors.New("unexpected end of JSON")
			}
			if b[j] == closer {
				return j + 1, nil
			}
			if b[j] != ',' {
				return 0, fmt.Errorf("offset %d: want ',' or %q", j, closer)
			}
			j = skipSpace(b, j+1)
		}
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
			j++
		}
		return j, nil
	}
}

func scanString(b []byte, i int) (int, error) {
	if i >= len(b) || b[i] != '"' {
		return 0, fmt.Errorf("offset %d: want a string", i)
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errors.New("unterminated string")
}

// members lists the members of the object at obj.
func members(b []byte, obj span) ([]member, error) {
	if b[obj.from] != '{' {
		return nil, fmt.Errorf("offset %d: want an object", obj.from)
	}
	var out []member
	j := skipSpace(b, obj.from+1)
	for j < obj.to-1 {
		kend, err := scanString(b, j)
		if err != nil {
			return nil, err
		}
		key, err := unquote(b[j:kend])
		if err != nil {
			return nil, err
		}
		v := skipSpace(b, skipSpace(b, kend)+1)
		vend, err := scanValue(b, v)
		if err != nil {
			return nil, err
		}
		out = append(out, member{key: key, keySpan: span{j, kend}, valueSpan: span{v, vend}})
		j = skipSpace(b, vend)
		if j < len(b) && b[j] == ',' {
			j = skipSpace(b, j+1)
		}
	}
	return out, nil
}

// elements lists the elements of the array at arr.
func elements(b []byte, arr span) ([]span, error) {
	if b[arr.from] != '[' {
		return nil, fmt.Errorf("offset %d: want an array", arr.from)
	}
	var out []span
	j := skipSpace(b, arr.from+1)
	for j < arr.to-1 {
		end, err := scanValue(b, j)
		if err != nil {
			return nil, err
		}
		out = append(out, span{j, end})
		j = skipSpace(b, end)
		if j < len(b) && b[j] == ',' {
			j = skipSpace(b, j+1)
		}
	}
	return out, nil
}
