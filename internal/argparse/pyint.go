package argparse

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
)

var errNotInt = errors.New("not an int")

// pyInt reads s as Python's int(s) reads a str: surrounding whitespace
// (Unicode), an optional sign, decimal digits of any script (٣ is 3), and
// single underscores between digits ("1_000"). Values that do not fit a Go
// int fail, where Python would return a larger int.
func pyInt(s string) (int, error) {
	s = strings.TrimFunc(s, pyIsSpace)
	var b strings.Builder
	for i, r := range s {
		switch {
		case (r == '+' || r == '-') && i == 0:
			b.WriteRune(r)
		case r == '_':
			b.WriteRune(r)
		case unicode.IsDigit(r):
			b.WriteByte(byte('0' + digitValue(r)))
		default:
			return 0, errNotInt
		}
	}
	digits := strings.TrimLeft(b.String(), "+-")
	if digits == "" || digits[0] == '_' || digits[len(digits)-1] == '_' || strings.Contains(digits, "__") {
		return 0, errNotInt
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(b.String(), "_", ""), 10, strconv.IntSize)
	if err != nil {
		return 0, errNotInt
	}
	return int(n), nil
}

// digitValue is the value of a decimal digit (Unicode category Nd). Such
// digits come in runs of ten from 0 to 9, so the value is the distance from
// the start of the run, modulo ten.
func digitValue(r rune) int {
	start := r
	for unicode.IsDigit(start - 1) {
		start--
	}
	return int(r-start) % 10
}
