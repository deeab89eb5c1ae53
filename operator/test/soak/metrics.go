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

// Sum adds up the samples of metric name in a Prometheus text exposition,
// grouped by the value of label (all under "" when label is empty), keeping
// only series whose labels include every pair of match.
func Sum(r io.Reader, name, label string, match map[string]string) (map[string]float64, error) {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		series, value, ok := cutValue(text)
		if !ok {
			continue
		}
		metric, labels, _ := strings.Cut(series, "{")
		if metric != name {
			continue
		}
		ls := parseLabels(strings.TrimSuffix(labels, "}"))
		keep := true
		for k, v := range match {
			if ls[k] != v {
				keep = false
			}
		}
		if !keep {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: value of %s: %w", line, name, err)
		}
		out[ls[label]] += v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading metrics: %w", err)
	}
	return out, nil
}

// cutValue splits "series value [timestamp]" after the closing brace of
// the labels, which may contain spaces.
func cutValue(text string) (series, value string, ok bool) {
	end := strings.LastIndex(text, "}")
	if end < 0 {
		end = strings.Index(text, " ")
		if end < 0 {
			return "", "", false
		}
		end--
	}
	series = text[:end+1]
	rest := strings.Fields(text[end+1:])
	if len(rest) == 0 {
		return "", "", false
	}
	return series, rest[0], true
}

// parseLabels reads a="b",c="d" (values without escaped quotes, as the
// series read here have).
func parseLabels(s string) map[string]string {
	out := map[string]string{}
	for s != "" {
		k, rest, ok := strings.Cut(s, "=\"")
		if !ok {
			break
		}
		v, rest, _ := strings.Cut(rest, "\"")
		out[strings.TrimSpace(k)] = v
		s = strings.TrimPrefix(rest, ",")
	}
	return out
}
