package xml

import (
	"bytes"
	stdxml "encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ParseError reports malformed or invalid definitions. It names the file,
// the line (when known) and what is wrong.
type ParseError struct {
	File string
	Line int
	Msg  string
	Err  error // underlying error, if any
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("xml: %s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("xml: %s: %s", e.File, e.Msg)
}

func (e *ParseError) Unwrap() error { return e.Err }

// ErrInvalid is matched (errors.Is) by every ParseError about definitions
// that are well-formed XML but break a rule of ts_xml.
var ErrInvalid = errors.New("invalid SAL definition")

// node is a minimal element tree: enough for ts_xml, which uses no
// attributes and keeps all content in element text.
type node struct {
	name     string
	text     string // character data directly inside the element
	children []*node
	line     int
}

func (n *node) child(name string) *node {
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

// childText returns the trimmed text of the named child and whether it exists.
func (n *node) childText(name string) (string, bool) {
	c := n.child(name)
	if c == nil {
		return "", false
	}
	return strings.TrimSpace(c.text), true
}

// rawText returns the untrimmed text of the named child, or def if absent
// or empty (as ElementTree's text is None for an empty element).
func (n *node) rawText(name, def string) string {
	c := n.child(name)
	if c == nil || c.text == "" {
		return def
	}
	return c.text
}

// parseTree reads one XML document into a node tree. Comments, processing
// instructions, directives and attributes are ignored.
func parseTree(file string, data []byte) (*node, error) {
	dec := stdxml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	dec.CharsetReader = func(charset string, input io.Reader) (io.Reader, error) {
		if strings.EqualFold(charset, "utf-8") || strings.EqualFold(charset, "us-ascii") {
			return input, nil
		}
		return nil, fmt.Errorf("unsupported encoding %q", charset)
	}
	var stack []*node
	var root *node
	var text [][]byte
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			line, _ := dec.InputPos()
			var se *stdxml.SyntaxError
			if errors.As(err, &se) {
				line = se.Line
				return nil, &ParseError{File: file, Line: line, Msg: "malformed XML: " + se.Msg, Err: err}
			}
			return nil, &ParseError{File: file, Line: line, Msg: "malformed XML: " + err.Error(), Err: err}
		}
		switch t := tok.(type) {
		case stdxml.StartElement:
			line, _ := dec.InputPos()
			n := &node{name: t.Name.Local, line: line}
			if len(stack) == 0 {
				if root != nil {
					return nil, &ParseError{File: file, Line: line, Msg: "more than one root element"}
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			}
			stack = append(stack, n)
			text = append(text, nil)
		case stdxml.EndElement:
			n := stack[len(stack)-1]
			n.text = string(text[len(text)-1])
			stack = stack[:len(stack)-1]
			text = text[:len(text)-1]
		case stdxml.CharData:
			if len(text) > 0 {
				text[len(text)-1] = append(text[len(text)-1], t...)
			}
		}
	}
	if root == nil {
		return nil, &ParseError{File: file, Msg: "no root element"}
	}
	return root, nil
}

func invalidf(file string, line int, format string, args ...any) error {
	return &ParseError{File: file, Line: line, Msg: fmt.Sprintf(format, args...), Err: ErrInvalid}
}
