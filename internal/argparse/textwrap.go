package argparse

import (
	"strings"
	"unicode"
)

// This file is Python's textwrap.wrap with its default settings (break long
// words, break on hyphens, drop whitespace), which argparse uses for help
// texts, descriptions and the version. Lengths are counted in code points,
// as Python's len counts them.

// collapse is argparse's preparation of a text before wrapping: runs of
// ASCII whitespace become one space, and the ends are stripped.
func collapse(s string) string {
	var b strings.Builder
	inSpace := false
	for _, r := range s {
		if asciiSpace(r) {
			inSpace = true
			continue
		}
		if inSpace {
			b.WriteByte(' ')
			inSpace = false
		}
		b.WriteRune(r)
	}
	if inSpace {
		b.WriteByte(' ')
	}
	return pyStrip(b.String())
}

// wrap is textwrap.wrap(text, width) for a text that collapse prepared.
func wrap(text string, width int) []string {
	chunks := splitChunks([]rune(text))
	var lines []string
	for len(chunks) > 0 {
		var line [][]rune
		n := 0
		if len(lines) > 0 && blank(chunks[0]) {
			chunks = chunks[1:]
		}
		for len(chunks) > 0 && n+len(chunks[0]) <= width {
			line = append(line, chunks[0])
			n += len(chunks[0])
			chunks = chunks[1:]
		}
		if len(chunks) > 0 && len(chunks[0]) > width {
			// A chunk longer than a line: break it, after its last hyphen
			// that fits if it has one with something other than hyphens
			// before it, else where the line is full.
			space := width - n
			if width < 1 {
				space = 1
			}
			c := chunks[0]
			end := space
			if len(c) > space {
				if h := lastIndex(c[:space], '-'); h > 0 && !allHyphens(c[:h]) {
					end = h + 1
				}
			}
			end = min(end, len(c))
			line = append(line, c[:end])
			chunks[0] = c[end:]
		}
		if len(line) > 0 && blank(line[len(line)-1]) {
			line = line[:len(line)-1]
		}
		if len(line) > 0 {
			var b strings.Builder
			for _, c := range line {
				b.WriteString(string(c))
			}
			lines = append(lines, b.String())
		}
	}
	return lines
}

// splitChunks is TextWrapper._split with break_on_hyphens: whitespace runs,
// words, the parts of hyphenated words ("goof-", "ball"), and em-dashes
// ("--" between words) as separate chunks.
func splitChunks(s []rune) [][]rune {
	var out [][]rune
	at := func(i int) rune {
		if i < 0 || i >= len(s) {
			return -1
		}
		return s[i]
	}
	// dashesThenWord reports whether -{2,}\w starts at i.
	dashesThenWord := func(i int) (int, bool) {
		j := i
		for j < len(s) && s[j] == '-' {
			j++
		}
		return j, j-i >= 2 && j < len(s) && isWord(s[j])
	}
	p := 0
	for p < len(s) {
		if asciiSpace(s[p]) {
			q := p
			for q < len(s) && asciiSpace(s[q]) {
				q++
			}
			out = append(out, s[p:q])
			p = q
			continue
		}
		if p > 0 && s[p] == '-' && wordPunct(s[p-1]) {
			if q, ok := dashesThenWord(p); ok {
				out = append(out, s[p:q])
				p = q
				continue
			}
		}
		end := len(s)
		for k := p + 1; k <= len(s); k++ {
			if k < len(s) && s[k] == '-' &&
				((letter(at(k-2)) && letter(at(k-1))) || (letter(at(k-3)) && at(k-2) == '-' && letter(at(k-1)))) &&
				letter(at(k+1)) && (letter(at(k+2)) || (at(k+2) == '-' && letter(at(k+3)))) {
				end = k + 1 // a hyphenated word: keep the hyphen
				break
			}
			if k == len(s) || asciiSpace(s[k]) {
				end = k
				break
			}
			if s[k] == '-' && wordPunct(s[k-1]) {
				if _, ok := dashesThenWord(k); ok {
					end = k
					break
				}
			}
		}
		out = append(out, s[p:end])
		p = end
	}
	return out
}

func lastIndex(r []rune, c rune) int {
	for i := len(r) - 1; i >= 0; i-- {
		if r[i] == c {
			return i
		}
	}
	return -1
}

func allHyphens(r []rune) bool {
	for _, c := range r {
		if c != '-' {
			return false
		}
	}
	return true
}

// blank is chunk.strip() == "".
func blank(r []rune) bool {
	for _, c := range r {
		if !pyIsSpace(c) {
			return false
		}
	}
	return true
}

// asciiSpace is textwrap's whitespace, and argparse's \s under re.ASCII.
func asciiSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r'
}

// isWord is \w of a Python str pattern: alphanumeric or underscore.
func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// letter is textwrap's [^\d\W]: \w but not a decimal digit.
func letter(r rune) bool { return r >= 0 && isWord(r) && !unicode.IsDigit(r) }

// wordPunct is textwrap's [\w!"\'&.,?].
func wordPunct(r rune) bool { return isWord(r) || strings.ContainsRune(`!"'&.,?`, r) }

// pyIsSpace is Python's str.isspace for one character: Unicode White_Space
// and the separators U+001C to U+001F.
func pyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// pyStrip is str.strip() without arguments.
func pyStrip(s string) string { return strings.TrimFunc(s, pyIsSpace) }
