package manifest

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// XMLNode is an element of a parsed XML document, with the line it starts
// on, for the readers of MSBuild projects and Maven POMs.
type XMLNode struct {
	Name     string // local name
	Attrs    map[string]string
	Text     string
	Line     int
	Children []*XMLNode
}

// child returns the first child element named name, or nil.
func (n *XMLNode) Child(name string) *XMLNode {
	if n == nil {
		return nil
	}
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// all returns the children named name.
func (n *XMLNode) All(name string) []*XMLNode {
	if n == nil {
		return nil
	}
	var out []*XMLNode
	for _, c := range n.Children {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// childText returns the trimmed text of the first child named name.
func (n *XMLNode) ChildText(name string) string {
	if c := n.Child(name); c != nil {
		return strings.TrimSpace(c.Text)
	}
	return ""
}

// ParseXML parses data into a tree of elements. Names are compared by
// their local part; attribute names keep their case.
func ParseXML(name string, data []byte) (*XMLNode, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	d.CharsetReader = charsetReader
	root := &XMLNode{}
	stack := []*XMLNode{root}
	for {
		line, _ := d.InputPos()
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, &ReadError{Path: name, Line: se.Line, Err: fmt.Errorf("parsing XML: %s", se.Msg)}
			}
			l, _ := d.InputPos()
			return nil, &ReadError{Path: name, Line: l, Err: fmt.Errorf("parsing XML: %w", err)}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &XMLNode{Name: t.Name.Local, Attrs: map[string]string{}, Line: line}
			for _, a := range t.Attr {
				n.Attrs[a.Name.Local] = a.Value
			}
			top := stack[len(stack)-1]
			top.Children = append(top.Children, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			top := stack[len(stack)-1]
			top.Text += string(t)
		}
	}
	if len(root.Children) != 1 {
		return nil, &ReadError{Path: name, Line: 1, Err: errors.New("parsing XML: want one root element")}
	}
	return root.Children[0], nil
}

// attr returns an attribute by name, ignoring case as MSBuild does.
func (n *XMLNode) Attr(name string) (string, bool) {
	for k, v := range n.Attrs {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// ExpandProps substitutes properties written as re matches with values
// from props; a property it does not know is an error, because its value
// may come from anywhere (fail closed).
func ExpandProps(re *regexp.Regexp, s string, props map[string]string) (string, error) {
	var missing []string
	for depth := 0; depth < 10 && re.MatchString(s); depth++ {
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			k := re.FindStringSubmatch(m)[1]
			if v, ok := props[k]; ok {
				return v
			}
			missing = append(missing, m)
			return m
		})
		if len(missing) > 0 {
			return "", fmt.Errorf("%s is not defined in this file", strings.Join(missing, ", "))
		}
	}
	if re.MatchString(s) {
		return "", fmt.Errorf("%s: properties nest too deeply", s)
	}
	return s, nil
}

// charsetReader decodes the encodings a declaration may name besides
// UTF-8: ISO-8859-1 (Latin-1, whose bytes are the first 256 code points,
// common in older Maven POMs) and US-ASCII. Another encoding is an error
// that names it: pinbot does not guess.
func charsetReader(charset string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(charset)) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return input, nil
	case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1":
		b, err := io.ReadAll(input)
		if err != nil {
			return nil, err
		}
		var out strings.Builder
		out.Grow(len(b) * 2)
		for _, c := range b {
			out.WriteRune(rune(c))
		}
		return strings.NewReader(out.String()), nil
	}
	return nil, fmt.Errorf("the file declares the encoding %q, which pinbot does not decode (it reads UTF-8, US-ASCII and ISO-8859-1)", charset)
}
