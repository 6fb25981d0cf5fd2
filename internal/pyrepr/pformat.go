package pyrepr

import (
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Mapping is an ordered mapping that PFormat can walk item by item (such as
// internal/yamlx's Map). Its PyRepr is its one-line form.
type Mapping interface {
	Reprer
	Keys() []string
	Get(key string) (any, bool)
}

// PFormat returns Python's pprint.pformat(v, width=width, sort_dicts=False):
// the repr when it fits in width, else dicts and lists one item per line
// and long strings split at spaces into adjacent literals.
func PFormat(v any, width int) string {
	p := printer{width: width}
	p.format(v, 0, 0, 0)
	return p.b.String()
}

type printer struct {
	width int
	b     strings.Builder
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

func (p *printer) format(v any, indent, allowance, level int) {
	rep := Repr(v)
	if runeLen(rep) <= p.width-indent-allowance {
		p.b.WriteString(rep)
		return
	}
	switch x := v.(type) {
	case Mapping:
		p.dict(x.Keys(), func(k string) any { v, _ := x.Get(k); return v }, indent, allowance)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		p.dict(keys, func(k string) any { return x[k] }, indent, allowance)
	case []any:
		p.b.WriteByte('[')
		p.items(x, indent, allowance+1, level+1)
		p.b.WriteByte(']')
	case string:
		p.str(x, indent, allowance, level+1)
	default:
		p.b.WriteString(rep)
	}
}

func (p *printer) dict(keys []string, get func(string) any, indent, allowance int) {
	p.b.WriteByte('{')
	indent++
	allowance++
	for i, k := range keys {
		last := i == len(keys)-1
		rep := String(k)
		p.b.WriteString(rep)
		p.b.WriteString(": ")
		a := 1
		if last {
			a = allowance
		}
		p.format(get(k), indent+runeLen(rep)+2, a, 1)
		if !last {
			p.b.WriteString(",\n" + strings.Repeat(" ", indent))
		}
	}
	p.b.WriteByte('}')
}

func (p *printer) items(list []any, indent, allowance, level int) {
	indent++
	for i, e := range list {
		if i > 0 {
			p.b.WriteString(",\n" + strings.Repeat(" ", indent))
		}
		a := 1
		if i == len(list)-1 {
			a = allowance
		}
		p.format(e, indent, a, level)
	}
}

var wordRE = regexp.MustCompile(`\S*\s*`)

// str is pprint's _pprint_str: each line, and a line too long for the
// width split after runs of white space, as adjacent string literals; at
// the top level the pieces are wrapped in parentheses.
func (p *printer) str(s string, indent, allowance, level int) {
	if s == "" {
		p.b.WriteString("''")
		return
	}
	lines := splitLinesKeepEnds(s)
	if level == 1 {
		indent++
		allowance++
	}
	maxWidth := p.width - indent
	maxWidth1 := maxWidth
	var chunks []string
	var rep string
	for i, line := range lines {
		rep = String(line)
		if i == len(lines)-1 {
			maxWidth1 -= allowance
		}
		if runeLen(rep) <= maxWidth1 {
			chunks = append(chunks, rep)
			continue
		}
		parts := wordRE.FindAllString(line, -1)
		maxWidth2 := maxWidth
		current := ""
		for j, part := range parts {
			candidate := current + part
			if j == len(parts)-1 && i == len(lines)-1 {
				maxWidth2 -= allowance
			}
			if runeLen(String(candidate)) > maxWidth2 {
				if current != "" {
					chunks = append(chunks, String(current))
				}
				current = part
			} else {
				current = candidate
			}
		}
		if current != "" {
			chunks = append(chunks, String(current))
		}
	}
	if len(chunks) == 1 {
		p.b.WriteString(rep)
		return
	}
	if level == 1 {
		p.b.WriteByte('(')
	}
	for i, c := range chunks {
		if i > 0 {
			p.b.WriteString("\n" + strings.Repeat(" ", indent))
		}
		p.b.WriteString(c)
	}
	if level == 1 {
		p.b.WriteByte(')')
	}
}

// splitLinesKeepEnds is str.splitlines(True) for \n, \r\n and \r.
func splitLinesKeepEnds(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			out = append(out, s[start:i+1])
			start = i + 1
		case '\r':
			end := i + 1
			if end < len(s) && s[end] == '\n' {
				end++
				i++
			}
			out = append(out, s[start:end])
			start = end
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
