package githubtest

import (
	"encoding/json"
	"testing"
)

// TestArraysNeverNull: a nil list anywhere in a response, however deep,
// encodes as [], and null values that are not lists stay null.
func TestArraysNeverNull(t *testing.T) {
	var files []obj
	var names []string
	v := obj{
		"files": files, "topics": names, "author": nil, "ids": []int64(nil),
		"commits": []obj{{"parents": []obj(nil), "verification": obj{"signature": nil}}},
		"nested":  []any{obj{"labels": []obj(nil)}, nil},
	}
	b, err := json.Marshal(arrays(v))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"author":null,"commits":[{"parents":[],"verification":{"signature":null}}],"files":[],"ids":[],"nested":[{"labels":[]},null],"topics":[]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}
