package yamlx

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/lsst-sal/salgo/internal/pyrepr"
)

// PyErrorText returns what Python's str() gives of the error PyYAML's
// yaml.safe_load raises for text (a Python str, so its marks are in
// "<unicode string>"), given the error UnmarshalOrdered returned for the
// same text: the MarkedYAMLError form, with the context and problem, their
// lines and columns and a snippet of each line with a caret.
//
// The YAML library reports less than PyYAML does (a line, no column, other
// words), so the marks are found again in text. This is done for the
// common mistakes only: a flow collection not closed or closed by the other
// bracket, a bracket too many after the document, a quoted scalar not
// closed, an undefined alias, a character that cannot start a token (tab,
// '@', '`'), a mapping value where none is allowed, a block sequence and a
// block mapping mixed at the top level, a second document, a second %YAML
// directive. For any other error, or text PyYAML reads with other line
// breaks or refuses as unprintable, ok is false.
func PyErrorText(text string, err error) (msg string, ok bool) {
	var e *Error
	if !errors.As(err, &e) {
		return "", false
	}
	src := []rune(text)
	for _, r := range src {
		if !pyPrintable(r) {
			return "", false
		}
	}
	p := &pyErr{src: src}
	switch m := e.Msg; {
	case m == "did not find expected ',' or ']'", m == "did not find expected ',' or '}'":
		return p.flow(m[len(m)-2])
	case m == "did not find expected <document start>":
		sc := scanFlow(src)
		if sc.extra < 0 {
			return "", false
		}
		return p.text("", -1, "expected '<document start>', but found "+pyrepr.String(string(src[sc.extra])), sc.extra), true
	case m == "found unexpected end of stream":
		sc := scanFlow(src)
		if sc.quote < 0 {
			return "", false
		}
		return p.text("while scanning a quoted scalar", sc.quote, "found unexpected end of stream", len(src)), true
	case strings.HasPrefix(m, "unknown anchor '") && strings.HasSuffix(m, "' referenced"):
		return p.alias(strings.TrimSuffix(strings.TrimPrefix(m, "unknown anchor '"), "' referenced"))
	case m == "found character that cannot start any token":
		return p.badChar(e.Line)
	case m == "mapping values are not allowed in this context":
		return p.mappingValue(e.Line)
	case m == "expected a single document in the stream, but found another document":
		return p.secondDocument()
	case m == "found duplicate %YAML directive":
		n := 0
		for _, l := range p.lines() {
			if strings.HasPrefix(string(src[l.start:l.end]), "%YAML") {
				if n++; n == 2 {
					return p.text("", -1, "found duplicate YAML directive", l.start), true
				}
			}
		}
	case m == "did not find expected '-' indicator", m == "did not find expected key":
		return p.blockEnd(m == "did not find expected key", e.Line)
	}
	return "", false
}

// pyPrintable is PyYAML's Reader.check_printable, with the line breaks
// other than "\n" refused too (their lines are counted otherwise), and a
// byte-order mark.
func pyPrintable(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return true
	case r >= 0x20 && r <= 0x7E:
		return true
	case r == 0x85 || r == 0xFEFF:
		return false
	case r >= 0xA0 && r <= 0xD7FF:
		return r != 0x2028 && r != 0x2029
	case r >= 0xE000 && r <= 0xFFFD:
		return true
	case r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

type pyErr struct{ src []rune }

// mark is PyYAML's str() of a Mark at rune offset pos: where, then the
// snippet of its line (Mark.get_snippet, indent 4, max_length 75).
func (p *pyErr) mark(pos int) string {
	line, col := 0, 0
	for _, r := range p.src[:pos] {
		if r == '\n' {
			line, col = line+1, 0
		} else {
			col++
		}
	}
	head, start := "", pos
	for start > 0 && p.src[start-1] != '\n' {
		start--
		if float64(pos-start) > 75.0/2-1 {
			head = " ... "
			start += 5
			break
		}
	}
	tail, end := "", pos
	for end < len(p.src) && p.src[end] != '\n' {
		end++
		if float64(end-pos) > 75.0/2-1 {
			tail = " ... "
			end -= 5
			break
		}
	}
	return `  in "<unicode string>", line ` + strconv.Itoa(line+1) + ", column " + strconv.Itoa(col+1) + ":\n" +
		"    " + head + string(p.src[start:end]) + tail + "\n" + strings.Repeat(" ", 4+pos-start+len(head)) + "^"
}

// text is MarkedYAMLError.__str__: context ("" for none) and its mark
// (-1 for none; left out when at the problem's), problem and its mark.
func (p *pyErr) text(context string, cpos int, problem string, ppos int) string {
	var lines []string
	if context != "" {
		lines = append(lines, context)
	}
	if cpos >= 0 && cpos != ppos {
		lines = append(lines, p.mark(cpos))
	}
	return strings.Join(append(lines, problem, p.mark(ppos)), "\n")
}

type pyLine struct{ start, end int } // rune offsets, end at the "\n" or the end

func (p *pyErr) lines() []pyLine {
	var ls []pyLine
	start := 0
	for i, r := range p.src {
		if r == '\n' {
			ls = append(ls, pyLine{start, i})
			start = i + 1
		}
	}
	return append(ls, pyLine{start, len(p.src)})
}

// flowScan is what scanFlow found.
type flowScan struct {
	open     []int // unclosed flow collections' openers, innermost last
	mismatch int   // a closer of the other kind than open's last, or -1
	extra    int   // a closer after the top-level collection closed, or -1
	quote    int   // the opening quote of a quoted scalar not closed, or -1
}

// scanFlow follows the flow collections and quoted scalars of src, with
// comments skipped, until the first mismatched closer or the end.
func scanFlow(src []rune) flowScan {
	sc := flowScan{mismatch: -1, extra: -1, quote: -1}
	closedTop := false
	for i := 0; i < len(src); i++ {
		r := src[i]
		start := tokenStart(src, i)
		switch {
		case r == '#' && (i == 0 || src[i-1] == ' ' || src[i-1] == '\t' || src[i-1] == '\n'):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case (r == '\'' || r == '"') && (start || len(sc.open) > 0 && flowStart(src, i)):
			j := i + 1
			for ; j < len(src); j++ {
				if r == '"' && src[j] == '\\' {
					j++
					continue
				}
				if src[j] == r {
					if r == '\'' && j+1 < len(src) && src[j+1] == '\'' {
						j++
						continue
					}
					break
				}
			}
			if j >= len(src) {
				sc.quote = i
				return sc
			}
			i = j
		case r == '[' || r == '{':
			if len(sc.open) > 0 || start {
				sc.open = append(sc.open, i)
			}
		case r == ']' || r == '}':
			if len(sc.open) == 0 {
				if closedTop {
					sc.extra = i
					return sc
				}
				continue
			}
			want := ']'
			if src[sc.open[len(sc.open)-1]] == '{' {
				want = '}'
			}
			if r != want {
				sc.mismatch = i
				return sc
			}
			sc.open = sc.open[:len(sc.open)-1]
			closedTop = len(sc.open) == 0
		}
	}
	return sc
}

// tokenStart reports whether a token may start at src[i] in block
// context: the line before it is blank, or ends with an indicator (": ",
// "- ", "? ", or a flow one) and spaces.
func tokenStart(src []rune, i int) bool {
	j := i - 1
	for j >= 0 && (src[j] == ' ' || src[j] == '\t') {
		j--
	}
	if j < 0 || src[j] == '\n' {
		return true
	}
	switch src[j] {
	case '[', '{', ',':
		return true
	case ':', '-', '?':
		return j < i-1 // followed by a space
	}
	return false
}

// flowStart is tokenStart inside a flow collection, where ':' needs no
// space.
func flowStart(src []rune, i int) bool {
	j := i - 1
	for j >= 0 && (src[j] == ' ' || src[j] == '\t' || src[j] == '\n') {
		j--
	}
	return j < 0 || strings.ContainsRune("[{,:", src[j])
}

func (p *pyErr) flow(closer byte) (string, bool) {
	sc := scanFlow(p.src)
	if sc.quote >= 0 || len(sc.open) == 0 {
		return "", false
	}
	opener := sc.open[len(sc.open)-1]
	kind, want := "sequence", ']'
	if p.src[opener] == '{' {
		kind, want = "mapping", '}'
	}
	if byte(want) != closer {
		return "", false
	}
	got, at := "'<stream end>'", len(p.src)
	if sc.mismatch >= 0 {
		got, at = pyrepr.String(string(p.src[sc.mismatch])), sc.mismatch
	}
	return p.text("while parsing a flow "+kind, opener, "expected ',' or '"+string(want)+"', but got "+got, at), true
}

var aliasName = regexp.MustCompile(`^[0-9A-Za-z_-]+$`)

func (p *pyErr) alias(name string) (string, bool) {
	if !aliasName.MatchString(name) {
		return "", false // PyYAML refuses the name itself
	}
	s := string(p.src)
	for off := 0; ; {
		i := strings.Index(s[off:], "*"+name)
		if i < 0 {
			return "", false
		}
		i += off
		end := i + 1 + len(name)
		if end == len(s) || !aliasName.MatchString(s[end:end+1]) {
			return p.text("", -1, "found undefined alias "+pyrepr.String(name), len([]rune(s[:i]))), true
		}
		off = end
	}
}

// badChar finds, on line (1-based), the first tab, '@' or '`' where a
// token would start.
func (p *pyErr) badChar(line int) (string, bool) {
	ls := p.lines()
	if line < 1 || line > len(ls) {
		return "", false
	}
	l := ls[line-1]
	for i := l.start; i < l.end; i++ {
		r := p.src[i]
		if r == '#' && (i == l.start || p.src[i-1] == ' ' || p.src[i-1] == '\t') {
			break
		}
		if r == '\'' || r == '"' {
			return "", false // quoted text on the line: not followed here
		}
		prevTok := i == l.start || strings.ContainsRune(" \t[{,", p.src[i-1])
		if r == '\t' && tokenStart(p.src, i) || (r == '@' || r == '`') && prevTok {
			return p.text("while scanning for the next token", -1,
				"found character "+pyrepr.String(string(r))+" that cannot start any token", i), true
		}
	}
	return "", false
}

// valueColons are the offsets of the ':' on l that are value indicators
// (followed by a space or the end of the line), before any comment.
func (p *pyErr) valueColons(l pyLine) []int {
	var cs []int
	for i := l.start; i < l.end; i++ {
		r := p.src[i]
		if r == '#' && (i == l.start || p.src[i-1] == ' ') {
			break
		}
		if r == '\'' || r == '"' || r == '[' || r == '{' || r == '\t' {
			return nil // not followed here
		}
		if r == ':' && (i+1 == l.end || p.src[i+1] == ' ') {
			cs = append(cs, i)
		}
	}
	return cs
}

func (p *pyErr) indent(l pyLine) int {
	i := l.start
	for i < l.end && p.src[i] == ' ' {
		i++
	}
	return i - l.start
}

func (p *pyErr) blank(l pyLine) bool {
	i := l.start + p.indent(l)
	return i == l.end || p.src[i] == '#'
}

// mappingValue finds the ':' PyYAML refuses on line (1-based): the first
// of the line when it continues a plain scalar that is the value of the
// key on the line before (indented more than that key), else the second.
func (p *pyErr) mappingValue(line int) (string, bool) {
	ls := p.lines()
	if line < 1 || line > len(ls) {
		return "", false
	}
	l := ls[line-1]
	cs := p.valueColons(l)
	if len(cs) == 0 {
		return "", false
	}
	prev := -1
	for k := line - 2; k >= 0; k-- {
		if !p.blank(ls[k]) {
			prev = k
			break
		}
	}
	pick := -1
	if prev >= 0 {
		pl := ls[prev]
		pcs := p.valueColons(pl)
		if len(pcs) == 1 && p.indent(l) > p.indent(pl) && !p.blank(pyLine{pcs[0] + 1, pl.end}) {
			pick = cs[0]
		}
	}
	if pick < 0 {
		if len(cs) < 2 {
			return "", false
		}
		pick = cs[1]
	}
	return p.text("", -1, "mapping values are not allowed here", pick), true
}

// secondDocument: the first document's node starts at its first content,
// the second document at its "---".
func (p *pyErr) secondDocument() (string, bool) {
	first := -1
	for _, l := range p.lines() {
		s := string(p.src[l.start:l.end])
		if p.blank(l) || strings.HasPrefix(s, "%") && first < 0 {
			continue
		}
		if s == "---" || strings.HasPrefix(s, "--- ") {
			if first >= 0 {
				return p.text("expected a single document in the stream", first, "but found another document", l.start), true
			}
			rest := pyLine{l.start + 3, l.end}
			if !p.blank(rest) {
				first = rest.start + p.indent(rest)
			}
			continue
		}
		if first < 0 {
			first = l.start + p.indent(l)
		}
	}
	return "", false
}

// blockEnd: a top-level block sequence (mapping) followed by a line at
// its indentation that is a mapping key (a sequence entry).
func (p *pyErr) blockEnd(mapping bool, line int) (string, bool) {
	ls := p.lines()
	first := -1
	for k, l := range ls {
		if p.blank(l) {
			continue
		}
		if first < 0 {
			if p.indent(l) != 0 || k+1 != line {
				return "", false
			}
			first = k
			continue
		}
		if p.indent(l) != 0 {
			continue
		}
		s := string(p.src[l.start:l.end])
		entry := s == "-" || strings.HasPrefix(s, "- ")
		switch {
		case !mapping && entry, mapping && !entry && len(p.valueColons(l)) > 0:
			continue
		case !mapping && len(p.valueColons(l)) > 0 && !strings.ContainsAny(s[:1], "'\"[{?!&*"):
			return p.text("while parsing a block collection", ls[first].start, "expected <block end>, but found '?'", l.start), true
		case mapping && entry:
			return p.text("while parsing a block mapping", ls[first].start, "expected <block end>, but found '-'", l.start), true
		}
		return "", false
	}
	return "", false
}
