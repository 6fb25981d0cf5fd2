package yamlx

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/lsst-sal/salgo/internal/pyrepr"
)

// SafeDump returns v as Python's yaml.safe_dump(v) writes it with its
// defaults (PyYAML 6): block style, mapping keys sorted, an indent of 2
// with sequences in a mapping not indented, plain scalars where YAML 1.1
// would read them back as the same string, else single quotes, else double
// quotes with escapes (every character outside printable ASCII is escaped:
// allow_unicode is off), long scalars folded at 80 columns, shared
// mappings and lists written once with an anchor (&id001) and then as
// aliases (*id001). A document that is a plain scalar ends with "...".
//
// v holds the values Unmarshal and UnmarshalOrdered return: nil, bool,
// string, int64, *big.Int, float64, []any, map[string]any and *Map (other
// Go integers and string-keyed maps are accepted too). Dates, timestamps
// and binary values are refused.
func SafeDump(v any) (string, error) {
	r := &representer{seen: map[any]*dnode{}}
	root, err := r.represent(v)
	if err != nil {
		return "", err
	}
	e := &emitter{indent: -1, whitespace: true, indention: true, anchors: map[*dnode]string{}, done: map[*dnode]bool{}}
	e.anchor(root)
	e.node(root, ctxRoot)
	// Document end, then stream end.
	e.writeIndent()
	if e.openEnded {
		e.writeIndicator("...", true, false, false)
		e.writeIndent()
	}
	return e.b.String(), nil
}

// dnode is one node of the representation: a scalar (with its tag and
// whether a plain or a quoted form reads back as that tag), a sequence or
// a mapping (pairs in key order).
type dnode struct {
	kind      int
	tag       string
	value     string
	implicit  [2]bool // (plain resolves to tag, non-plain resolves to tag)
	items     []*dnode
	keys      []*dnode
	vals      []*dnode
	anchorKey any
}

const (
	kindScalar = iota
	kindSeq
	kindMap
)

// representer is PyYAML's SafeRepresenter: Python objects (here Go values)
// become nodes; a list or dict met again gives the same node.
type representer struct {
	seen map[any]*dnode
}

func (r *representer) scalar(tag, value string) *dnode {
	return &dnode{kind: kindScalar, tag: tag, value: value, implicit: [2]bool{Resolve(value) == tag, tag == tagStr}}
}

func (r *representer) represent(v any) (*dnode, error) {
	switch x := v.(type) {
	case nil:
		return r.scalar(tagNull, "null"), nil
	case bool:
		if x {
			return r.scalar(tagBool, "true"), nil
		}
		return r.scalar(tagBool, "false"), nil
	case string:
		return r.scalar(tagStr, x), nil
	case int:
		return r.scalar(tagInt, strconv.Itoa(x)), nil
	case int32:
		return r.scalar(tagInt, strconv.FormatInt(int64(x), 10)), nil
	case int64:
		return r.scalar(tagInt, strconv.FormatInt(x, 10)), nil
	case *big.Int:
		return r.scalar(tagInt, x.String()), nil
	case float64:
		return r.scalar(tagFloat, pyYAMLFloat(x)), nil
	case float32:
		return r.scalar(tagFloat, pyYAMLFloat(float64(x))), nil
	case []any:
		var key any
		if len(x) > 0 {
			key = sliceKey{&x[0], len(x)}
			if n, ok := r.seen[key]; ok {
				return n, nil
			}
		}
		n := &dnode{kind: kindSeq, tag: tagSeq, anchorKey: key}
		if key != nil {
			r.seen[key] = n
		}
		for _, e := range x {
			c, err := r.represent(e)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, c)
		}
		return n, nil
	case *Map:
		if n, ok := r.seen[x]; ok {
			return n, nil
		}
		n := &dnode{kind: kindMap, tag: tagMap}
		r.seen[x] = n
		return n, r.pairs(n, x.Keys(), func(k string) any { v, _ := x.Get(k); return v })
	case map[string]any:
		key := reflect.ValueOf(x).UnsafePointer()
		if n, ok := r.seen[key]; ok {
			return n, nil
		}
		n := &dnode{kind: kindMap, tag: tagMap}
		r.seen[key] = n
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		return n, r.pairs(n, keys, func(k string) any { return x[k] })
	}
	return nil, fmt.Errorf("yamlx: cannot dump a %T (%s) as yaml.safe_dump would", v, pyrepr.Repr(v))
}

// sliceKey identifies a list by its backing array, as Python's id() does.
type sliceKey struct {
	first *any
	n     int
}

// pairs fills a mapping node, its keys sorted (sort_keys=True).
func (r *representer) pairs(n *dnode, keys []string, get func(string) any) error {
	keys = append([]string(nil), keys...)
	sort.Strings(keys)
	for _, k := range keys {
		v, err := r.represent(get(k))
		if err != nil {
			return err
		}
		n.keys = append(n.keys, r.scalar(tagStr, k))
		n.vals = append(n.vals, v)
	}
	return nil
}

// pyYAMLFloat is SafeRepresenter.represent_float: .nan, .inf, -.inf, or
// Python's repr in lower case with ".0" put before an "e" that has no
// decimal point before it (1e+16 becomes 1.0e+16).
func pyYAMLFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return ".nan"
	case math.IsInf(f, 1):
		return ".inf"
	case math.IsInf(f, -1):
		return "-.inf"
	}
	s := strings.ToLower(pyrepr.Float(f))
	if !strings.Contains(s, ".") && strings.Contains(s, "e") {
		s = strings.Replace(s, "e", ".0e", 1)
	}
	return s
}

// Contexts of a node, as the emitter's expect_node flags.
type nodeCtx struct{ root, sequence, mapping, simpleKey bool }

var (
	ctxRoot     = nodeCtx{root: true}
	ctxSequence = nodeCtx{sequence: true}
	ctxMapping  = nodeCtx{mapping: true}
	ctxKey      = nodeCtx{mapping: true, simpleKey: true}
)

// emitter is PyYAML's Emitter with its defaults (indent 2, width 80, "\n",
// not canonical, allow_unicode off), driven by the node tree instead of
// an event stream. Columns count characters, as Python does.
type emitter struct {
	b          strings.Builder
	indents    []int
	indent     int // -1 for Python's None
	flowLevel  int
	column     int
	whitespace bool
	indention  bool
	openEnded  bool
	ctx        nodeCtx

	anchors map[*dnode]string // collections met more than once
	lastID  int
	done    map[*dnode]bool // nodes already written (the next time: an alias)
}

const (
	bestIndent = 2
	bestWidth  = 80
)

// anchor is the Serializer's anchor_node: a collection reached a second
// time gets the next id, in the order of those second visits.
func (e *emitter) anchor(n *dnode) {
	if n.kind == kindScalar {
		return
	}
	if a, ok := e.anchors[n]; ok {
		if a == "" {
			e.lastID++
			e.anchors[n] = fmt.Sprintf("id%03d", e.lastID)
		}
		return
	}
	e.anchors[n] = ""
	for _, c := range n.items {
		e.anchor(c)
	}
	for i := range n.keys {
		e.anchor(n.keys[i])
		e.anchor(n.vals[i])
	}
}

func (e *emitter) node(n *dnode, ctx nodeCtx) {
	e.ctx = ctx
	anchor := e.anchors[n]
	if e.done[n] && anchor != "" {
		e.writeIndicator("*"+anchor, true, false, false)
		return
	}
	e.done[n] = true
	if anchor != "" {
		e.writeIndicator("&"+anchor, true, false, false)
	}
	switch n.kind {
	case kindScalar:
		e.scalar(n)
	case kindSeq:
		if e.flowLevel > 0 || len(n.items) == 0 {
			e.flowCollection(n, "[", "]")
		} else {
			e.blockSequence(n)
		}
	case kindMap:
		if e.flowLevel > 0 || len(n.keys) == 0 {
			e.flowCollection(n, "{", "}")
		} else {
			e.blockMapping(n)
		}
	}
}

func (e *emitter) increaseIndent(flow, indentless bool) {
	e.indents = append(e.indents, e.indent)
	switch {
	case e.indent < 0 && flow:
		e.indent = bestIndent
	case e.indent < 0:
		e.indent = 0
	case !indentless:
		e.indent += bestIndent
	}
}

func (e *emitter) popIndent() {
	e.indent = e.indents[len(e.indents)-1]
	e.indents = e.indents[:len(e.indents)-1]
}

// flowCollection writes an empty sequence or mapping, the only flow
// collections block-style dumping makes: "[]" or "{}".
func (e *emitter) flowCollection(n *dnode, open, close string) {
	e.writeIndicator(open, true, true, false)
	e.flowLevel++
	e.increaseIndent(true, false)
	e.popIndent()
	e.flowLevel--
	e.writeIndicator(close, false, false, false)
}

func (e *emitter) blockSequence(n *dnode) {
	e.increaseIndent(false, e.ctx.mapping && !e.indention)
	for _, it := range n.items {
		e.writeIndent()
		e.writeIndicator("-", true, false, true)
		e.node(it, ctxSequence)
	}
	e.popIndent()
}

func (e *emitter) blockMapping(n *dnode) {
	e.increaseIndent(false, false)
	for i, k := range n.keys {
		e.writeIndent()
		if simpleKey(k) {
			e.node(k, ctxKey)
			e.writeIndicator(":", false, false, false)
		} else {
			e.writeIndicator("?", true, false, true)
			e.node(k, ctxMapping)
			e.writeIndent()
			e.writeIndicator(":", true, false, true)
		}
		e.node(n.vals[i], ctxMapping)
	}
	e.popIndent()
}

// simpleKey is check_simple_key for a scalar key: its prepared tag
// ("!!str", always counted) and text under 128 characters, on one line.
func simpleKey(k *dnode) bool {
	a := analyze(k.value)
	return len("!!str")+len([]rune(k.value)) < 128 && !a.empty && !a.multiline
}

func (e *emitter) scalar(n *dnode) {
	a := analyze(n.value)
	style := e.chooseStyle(n, a)
	if !(style == "" && n.implicit[0] || style != "" && n.implicit[1]) {
		e.writeIndicator(shortTag(n.tag), true, false, false)
	}
	split := !e.ctx.simpleKey
	text := []rune(n.value)
	e.increaseIndent(true, false) // expect_scalar: folded lines indent under the scalar
	switch style {
	case `"`:
		e.writeDoubleQuoted(text, split)
	case "'":
		e.writeSingleQuoted(text, split)
	default:
		e.writePlain(text, split)
	}
	e.popIndent()
}

func shortTag(t string) string {
	if s, ok := strings.CutPrefix(t, "tag:yaml.org,2002:"); ok {
		return "!!" + s
	}
	return "!<" + t + ">"
}

func (e *emitter) chooseStyle(n *dnode, a analysis) string {
	if n.implicit[0] && !(e.ctx.simpleKey && (a.empty || a.multiline)) &&
		(e.flowLevel > 0 && a.allowFlowPlain || e.flowLevel == 0 && a.allowBlockPlain) {
		return ""
	}
	if a.allowSingleQuoted && !(e.ctx.simpleKey && a.multiline) {
		return "'"
	}
	return `"`
}

// analysis is the emitter's ScalarAnalysis: which styles can carry a text.
type analysis struct {
	empty, multiline                                               bool
	allowFlowPlain, allowBlockPlain, allowSingleQuoted, allowBlock bool
}

func isBreak(r rune) bool { return r == '\n' || r == '\x85' || r == '\u2028' || r == '\u2029' }

func isBlankOrEnd(r rune) bool { return r == 0 || r == ' ' || r == '\t' || r == '\r' || isBreak(r) }

func analyze(s string) analysis {
	text := []rune(s)
	if len(text) == 0 {
		return analysis{empty: true, allowBlockPlain: true, allowSingleQuoted: true}
	}
	var blockInd, flowInd, lineBreaks, special bool
	var leadingSpace, leadingBreak, trailingSpace, trailingBreak, breakSpace, spaceBreak bool
	if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		blockInd, flowInd = true, true
	}
	precededByWS := true
	followedByWS := len(text) == 1 || isBlankOrEnd(text[1])
	prevSpace, prevBreak := false, false
	for i, ch := range text {
		if i == 0 {
			if strings.ContainsRune("#,[]{}&*!|>'\"%@`", ch) {
				flowInd, blockInd = true, true
			}
			if ch == '?' || ch == ':' {
				flowInd = true
				if followedByWS {
					blockInd = true
				}
			}
			if ch == '-' && followedByWS {
				flowInd, blockInd = true, true
			}
		} else {
			if strings.ContainsRune(",?[]{}", ch) {
				flowInd = true
			}
			if ch == ':' {
				flowInd = true
				if followedByWS {
					blockInd = true
				}
			}
			if ch == '#' && precededByWS {
				flowInd, blockInd = true, true
			}
		}
		if isBreak(ch) {
			lineBreaks = true
		}
		if !(ch == '\n' || ch >= 0x20 && ch <= 0x7e) {
			// Printable non-ASCII would be kept with allow_unicode; it is off.
			special = true
		}
		switch {
		case ch == ' ':
			if i == 0 {
				leadingSpace = true
			}
			if i == len(text)-1 {
				trailingSpace = true
			}
			if prevBreak {
				breakSpace = true
			}
			prevSpace, prevBreak = true, false
		case isBreak(ch):
			if i == 0 {
				leadingBreak = true
			}
			if i == len(text)-1 {
				trailingBreak = true
			}
			if prevSpace {
				spaceBreak = true
			}
			prevSpace, prevBreak = false, true
		default:
			prevSpace, prevBreak = false, false
		}
		precededByWS = isBlankOrEnd(ch)
		followedByWS = i+2 >= len(text) || isBlankOrEnd(text[i+2])
	}
	a := analysis{multiline: lineBreaks, allowFlowPlain: true, allowBlockPlain: true, allowSingleQuoted: true, allowBlock: true}
	if leadingSpace || leadingBreak || trailingSpace || trailingBreak {
		a.allowFlowPlain, a.allowBlockPlain = false, false
	}
	if trailingSpace {
		a.allowBlock = false
	}
	if breakSpace {
		a.allowFlowPlain, a.allowBlockPlain, a.allowSingleQuoted = false, false, false
	}
	if spaceBreak || special {
		a.allowFlowPlain, a.allowBlockPlain, a.allowSingleQuoted, a.allowBlock = false, false, false, false
	}
	if lineBreaks {
		a.allowFlowPlain, a.allowBlockPlain = false, false
	}
	if flowInd {
		a.allowFlowPlain = false
	}
	if blockInd {
		a.allowBlockPlain = false
	}
	return a
}

func (e *emitter) write(s string) {
	e.b.WriteString(s)
	e.column += len([]rune(s))
}

func (e *emitter) writeIndicator(ind string, needWhitespace, whitespace, indention bool) {
	if !e.whitespace && needWhitespace {
		ind = " " + ind
	}
	e.whitespace = whitespace
	e.indention = e.indention && indention
	e.openEnded = false
	e.write(ind)
}

func (e *emitter) writeIndent() {
	indent := max(e.indent, 0)
	if !e.indention || e.column > indent || e.column == indent && !e.whitespace {
		e.writeLineBreak("\n")
	}
	if e.column < indent {
		e.whitespace = true
		e.write(strings.Repeat(" ", indent-e.column))
	}
}

func (e *emitter) writeLineBreak(br string) {
	e.whitespace = true
	e.indention = true
	e.b.WriteString(br)
	e.column = 0
}

// writeBreaks writes the line breaks text[start:end] (a "\n" first counts
// twice: a folded line break), then the indent.
func (e *emitter) writeBreaks(text []rune, start, end int) {
	if text[start] == '\n' {
		e.writeLineBreak("\n")
	}
	for _, br := range text[start:end] {
		e.writeLineBreak(string(br))
	}
	e.writeIndent()
}

func (e *emitter) writePlain(text []rune, split bool) {
	if e.ctx.root {
		e.openEnded = true
	}
	if len(text) == 0 {
		return
	}
	if !e.whitespace {
		e.write(" ")
	}
	e.whitespace, e.indention = false, false
	spaces, breaks := false, false
	start := 0
	for end := 0; end <= len(text); end++ {
		var ch rune = -1
		if end < len(text) {
			ch = text[end]
		}
		switch {
		case spaces:
			if ch != ' ' {
				if start+1 == end && e.column > bestWidth && split {
					e.writeIndent()
					e.whitespace, e.indention = false, false
				} else {
					e.write(string(text[start:end]))
				}
				start = end
			}
		case breaks:
			if ch < 0 || !isBreak(ch) {
				e.writeBreaks(text, start, end)
				e.whitespace, e.indention = false, false
				start = end
			}
		default:
			if ch < 0 || ch == ' ' || isBreak(ch) {
				e.write(string(text[start:end]))
				start = end
			}
		}
		if ch >= 0 {
			spaces, breaks = ch == ' ', isBreak(ch)
		}
	}
}

func (e *emitter) writeSingleQuoted(text []rune, split bool) {
	e.writeIndicator("'", true, false, false)
	spaces, breaks := false, false
	start := 0
	for end := 0; end <= len(text); end++ {
		var ch rune = -1
		if end < len(text) {
			ch = text[end]
		}
		switch {
		case spaces:
			if ch != ' ' {
				if start+1 == end && e.column > bestWidth && split && start != 0 && end != len(text) {
					e.writeIndent()
				} else {
					e.write(string(text[start:end]))
				}
				start = end
			}
		case breaks:
			if ch < 0 || !isBreak(ch) {
				e.writeBreaks(text, start, end)
				start = end
			}
		default:
			if ch < 0 || ch == ' ' || isBreak(ch) || ch == '\'' {
				if start < end {
					e.write(string(text[start:end]))
					start = end
				}
			}
		}
		if ch == '\'' {
			e.write("''")
			start = end + 1
		}
		if ch >= 0 {
			spaces, breaks = ch == ' ', isBreak(ch)
		}
	}
	e.writeIndicator("'", false, false, false)
}

var escapes = map[rune]string{
	0: "0", '\a': "a", '\b': "b", '\t': "t", '\n': "n", '\v': "v", '\f': "f", '\r': "r",
	'\x1b': "e", '"': `"`, '\\': `\`, '\x85': "N", '\xa0': "_", '\u2028': "L", '\u2029': "P",
}

func (e *emitter) writeDoubleQuoted(text []rune, split bool) {
	e.writeIndicator(`"`, true, false, false)
	start := 0
	for end := 0; end <= len(text); end++ {
		var ch rune = -1
		if end < len(text) {
			ch = text[end]
		}
		if ch < 0 || ch == '"' || ch == '\\' || ch == '\x85' || ch == '\u2028' || ch == '\u2029' || ch == '\ufeff' || ch < 0x20 || ch > 0x7e {
			if start < end {
				e.write(string(text[start:end]))
				start = end
			}
			if ch >= 0 {
				var esc string
				switch r, ok := escapes[ch]; {
				case ok:
					esc = `\` + r
				case ch <= 0xff:
					esc = fmt.Sprintf(`\x%02X`, ch)
				case ch <= 0xffff:
					esc = fmt.Sprintf(`\u%04X`, ch)
				default:
					esc = fmt.Sprintf(`\U%08X`, ch)
				}
				e.write(esc)
				start = end + 1
			}
		}
		if 0 < end && end < len(text)-1 && (ch == ' ' || start >= end) && e.column+(end-start) > bestWidth && split {
			data := `\`
			if start < end { // Python's text[start:end] is empty when start > end
				data = string(text[start:end]) + data
			}
			if start < end {
				start = end
			}
			e.write(data)
			e.writeIndent()
			e.whitespace, e.indention = false, false
			if text[start] == ' ' {
				e.write(`\`)
			}
		}
	}
	e.writeIndicator(`"`, false, false, false)
}
