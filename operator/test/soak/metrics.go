package soak

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Memory is what the operator's metrics say about its memory.
type Memory struct {
	// RSS is process_resident_memory_bytes.
	RSS float64
	// HeapInuse is go_memstats_heap_inuse_bytes.
	HeapInuse float64
}

// String shows both figures in MiB.
func (m Memory) String() string {
	return fmt.Sprintf("RSS %.1f MiB, heap in use %.1f MiB", m.RSS/(1<<20), m.HeapInuse/(1<<20))
}

// Parse reads the memory figures from a Prometheus text exposition. A
// missing series is an error naming it.
func Parse(r io.Reader) (Memory, error) {
	want := map[string]*float64{}
	var m Memory
	want["process_resident_memory_bytes"] = &m.RSS
	want["go_memstats_heap_inuse_bytes"] = &m.HeapInuse
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		name, rest, ok := strings.Cut(text, " ")
		if !ok {
			continue
		}
		p, ok := want[name]
		if !ok {
			continue
		}
		value, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("line %d: value of %s: %w", line, name, err)
		}
		*p = v
		seen[name] = true
	}
	if err := sc.Err(); err != nil {
		return Memory{}, fmt.Errorf("reading metrics: %w", err)
	}
	for _, name := range []string{"process_resident_memory_bytes", "go_memstats_heap_inuse_bytes"} {
		if !seen[name] {
			return Memory{}, fmt.Errorf("metrics have no %s", name)
		}
	}
	return m, nil
}
