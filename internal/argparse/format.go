package argparse

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The layout constants of argparse.HelpFormatter.
const (
	indentIncrement = 2
	maxHelpPosition = 24
	usagePrefix     = "usage: "
)

// Usage returns the usage as argparse's format_usage does, e.g.
// "usage: Run TestCsc [-h] ... index\n", wrapped to the width.
func (p *Parser) Usage() string {
	return finish(p.usageBlock(p.width()))
}

// Help returns the help that -h prints: the usage (as the errors show it),
// the description, and the "positional arguments:" and "options:" sections
// (Python 3.10 and later call the second "options"), each argument with its
// help text beside it from column 24 at most, or under it when the argument
// is too long. This is argparse's layout for texts that fit the width; longer
// texts are not wrapped (the help is for a person at a terminal: see
// docs/architecture.md, "Parity with ts_salobj").
func (p *Parser) Help() string {
	var b strings.Builder
	b.WriteString(p.usageBlock(p.width()))
	b.WriteString(p.textBlock(p.description))

	var positionals, optionals []*arg
	longest := 0
	for _, a := range p.args {
		if a.positional() {
			positionals = append(positionals, a)
		} else {
			optionals = append(optionals, a)
		}
		longest = max(longest, runeLen(a.invocation())+indentIncrement)
	}
	helpPos := min(longest+2, maxHelpPosition)
	for _, sec := range []struct {
		heading string
		args    []*arg
	}{{"positional arguments", positionals}, {"options", optionals}} {
		if len(sec.args) == 0 {
			continue
		}
		b.WriteString("\n" + sec.heading + ":\n")
		for _, a := range sec.args {
			b.WriteString(formatArg(a, helpPos))
		}
		b.WriteString("\n")
	}
	return finish(b.String())
}

// formatVersion is what the version action prints.
func (p *Parser) formatVersion(version string) string {
	return finish(p.textBlock(version))
}

var longBreak = regexp.MustCompile(`\n\n\n+`)

// finish is the end of HelpFormatter.format_help: runs of blank lines
// become one, and the text ends in exactly one newline.
func finish(s string) string {
	if s == "" {
		return ""
	}
	s = longBreak.ReplaceAllString(s, "\n\n")
	return strings.Trim(s, "\n") + "\n"
}

// textBlock is _format_text without the wrapping: %(prog)s replaced,
// whitespace collapsed.
func (p *Parser) textBlock(text string) string {
	if strings.Contains(text, "%(prog)") {
		text = strings.NewReplacer("%(prog)s", p.prog, "%%", "%").Replace(text)
	}
	return collapse(text) + "\n\n"
}

// formatArg is one argument of the help: "  --name NAME", then its help
// text from column helpPos, on the same line when the name leaves room.
func formatArg(a *arg, helpPos int) string {
	line := strings.Repeat(" ", indentIncrement) + a.invocation()
	help := collapse(a.help)
	switch {
	case help == "":
		return line + "\n"
	case runeLen(line)+2 <= helpPos:
		return line + strings.Repeat(" ", helpPos-runeLen(line)) + help + "\n"
	}
	return line + "\n" + strings.Repeat(" ", helpPos) + help + "\n"
}

// invocation is how the help lists an argument: "index", "-h, --help",
// "--state {offline,standby,disabled,enabled}".
func (a *arg) invocation() string {
	if a.positional() {
		return a.metavarOr(a.dest)
	}
	if !a.kind.takesValue() {
		return strings.Join(a.options, ", ")
	}
	m := a.metavarOr(strings.ToUpper(a.dest))
	parts := make([]string, len(a.options))
	for i, o := range a.options {
		parts[i] = o + " " + m
	}
	return strings.Join(parts, ", ")
}

// metavarOr is _metavar_formatter: the Metavar, else the choices in
// braces, else the default.
func (a *arg) metavarOr(def string) string {
	switch {
	case a.hasMeta:
		return a.metavar
	case a.choices != nil:
		strs := make([]string, len(a.choices))
		for i, c := range a.choices {
			switch c := c.(type) {
			case int:
				strs[i] = strconv.Itoa(c)
			case string:
				strs[i] = c
			}
		}
		return "{" + strings.Join(strs, ",") + "}"
	}
	return def
}

// usagePart is how the usage shows an argument: "[--loglevel LOGLEVEL]",
// "[--version]", "index", "--port PORT" when required.
func (a *arg) usagePart() string {
	if a.positional() {
		return a.metavarOr(a.dest)
	}
	part := a.options[0]
	if a.kind.takesValue() {
		part += " " + a.metavarOr(strings.ToUpper(a.dest))
	}
	if !a.required {
		part = "[" + part + "]"
	}
	return part
}

var (
	openSpace  = regexp.MustCompile(`([\[(]) `)
	spaceClose = regexp.MustCompile(` ([\])])`)
	emptyPair  = regexp.MustCompile(`[\[(] *[\])]`)
)

// actionsUsage is _format_actions_usage without groups.
func actionsUsage(args []*arg) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.usagePart()
	}
	text := strings.Join(parts, " ")
	text = openSpace.ReplaceAllString(text, "$1")
	text = spaceClose.ReplaceAllString(text, "$1")
	text = emptyPair.ReplaceAllString(text, "")
	return pyStrip(text)
}

// usageBlock is _format_usage: "usage: " and the program with its
// arguments, wrapped when too long, followed by a blank line.
func (p *Parser) usageBlock(width int) string {
	var optionals, positionals []*arg
	for _, a := range p.args {
		if a.positional() {
			positionals = append(positionals, a)
		} else {
			optionals = append(optionals, a)
		}
	}
	usage := p.prog
	if all := actionsUsage(append(append([]*arg(nil), optionals...), positionals...)); all != "" {
		usage = strings.TrimPrefix(p.prog+" "+all, " ")
	}
	if runeLen(usagePrefix)+runeLen(usage) > width {
		optParts := usageParts(actionsUsage(optionals))
		posParts := usageParts(actionsUsage(positionals))
		var lines []string
		if float64(runeLen(usagePrefix)+runeLen(p.prog)) <= 0.75*float64(width) {
			indent := strings.Repeat(" ", runeLen(usagePrefix)+runeLen(p.prog)+1)
			switch {
			case len(optParts) > 0:
				lines = usageLines(append([]string{p.prog}, optParts...), indent, usagePrefix, width)
				lines = append(lines, usageLines(posParts, indent, "", width)...)
			case len(posParts) > 0:
				lines = usageLines(append([]string{p.prog}, posParts...), indent, usagePrefix, width)
			default:
				lines = []string{p.prog}
			}
		} else {
			indent := strings.Repeat(" ", runeLen(usagePrefix))
			lines = usageLines(append(append([]string(nil), optParts...), posParts...), indent, "", width)
			if len(lines) > 1 {
				lines = append(usageLines(optParts, indent, "", width), usageLines(posParts, indent, "", width)...)
			}
			lines = append([]string{p.prog}, lines...)
		}
		usage = strings.Join(lines, "\n")
	}
	return usagePrefix + usage + "\n\n"
}

// usageLines is get_lines of _format_usage: parts joined by spaces into
// lines of at most width, each after indent; with a prefix, the first line
// is measured after the prefix and carries no indent.
func usageLines(parts []string, indent, prefix string, width int) []string {
	var lines, line []string
	lineLen := runeLen(indent) - 1
	if prefix != "" {
		lineLen = runeLen(prefix) - 1
	}
	for _, part := range parts {
		if lineLen+1+runeLen(part) > width && len(line) > 0 {
			lines = append(lines, indent+strings.Join(line, " "))
			line = nil
			lineLen = runeLen(indent) - 1
		}
		line = append(line, part)
		lineLen += runeLen(part) + 1
	}
	if len(line) > 0 {
		lines = append(lines, indent+strings.Join(line, " "))
	}
	if prefix != "" && len(lines) > 0 {
		lines[0] = lines[0][len(indent):]
	}
	return lines
}

// usageParts splits a usage into the pieces that are never broken, as
// argparse's regular expression \(.*?\)+(?=\s|$)|\[.*?\]+(?=\s|$)|\S+
// finds them: a bracketed group up to a closing bracket that ends a word,
// or else a run of non-space characters.
func usageParts(s string) []string {
	var parts []string
	r := []rune(s)
	i := 0
	for i < len(r) {
		if reSpace(r[i]) {
			i++
			continue
		}
		end := -1
		if r[i] == '(' || r[i] == '[' {
			end = bracketEnd(r, i, map[rune]rune{'(': ')', '[': ']'}[r[i]])
		}
		if end < 0 {
			end = i
			for end < len(r) && !reSpace(r[end]) {
				end++
			}
		}
		parts = append(parts, string(r[i:end]))
		i = end
	}
	return parts
}

// bracketEnd returns the end of the shortest match of open.*?close+ from i
// that is followed by whitespace or the end (. stops at a newline), or -1.
func bracketEnd(r []rune, i int, close rune) int {
	for k := i + 1; k < len(r) && r[k] != '\n'; k++ {
		if r[k] != close {
			continue
		}
		m := k
		for m < len(r) && r[m] == close {
			m++
		}
		if m == len(r) || reSpace(r[m]) {
			return m
		}
	}
	return -1
}

// collapse is argparse's preparation of a text: runs of ASCII whitespace
// become one space, and the ends are stripped as str.strip() strips them.
func collapse(s string) string {
	return pyStrip(strings.Join(strings.FieldsFunc(s, asciiSpace), " "))
}

// asciiSpace is argparse's \s under re.ASCII.
func asciiSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r'
}

// reSpace is \s of a Python str pattern: Unicode whitespace.
func reSpace(r rune) bool { return pyIsSpace(r) }

// pyIsSpace is Python's str.isspace for one character: Unicode White_Space
// and the separators U+001C to U+001F.
func pyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// pyStrip is str.strip() without arguments.
func pyStrip(s string) string { return strings.TrimFunc(s, pyIsSpace) }

func runeLen(s string) int { return utf8.RuneCountInString(s) }
