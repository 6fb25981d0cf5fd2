package pyrepr

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Reprer is a value that knows its own Python repr.
type Reprer interface {
	PyRepr() string
}

// Repr returns Python's repr(v).
func Repr(v any) string {
	var b strings.Builder
	write(&b, v)
	return b.String()
}

// Str returns Python's str(v): a string is itself, anything else is its
// repr (str and repr agree for None, bools, numbers and containers).
func Str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return Repr(v)
}

func write(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case Reprer:
		b.WriteString(x.PyRepr())
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case string:
		b.WriteString(String(x))
	case []byte:
		b.WriteString(Bytes(x))
	case int:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int8:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int16:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case uint:
		b.WriteString(strconv.FormatUint(uint64(x), 10))
	case uint8:
		b.WriteString(strconv.FormatUint(uint64(x), 10))
	case uint16:
		b.WriteString(strconv.FormatUint(uint64(x), 10))
	case uint32:
		b.WriteString(strconv.FormatUint(uint64(x), 10))
	case uint64:
		b.WriteString(strconv.FormatUint(x, 10))
	case *big.Int:
		b.WriteString(x.String())
	case float64:
		b.WriteString(Float(x))
	case float32:
		b.WriteString(Float(float64(x)))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			write(b, e)
		}
		b.WriteByte(']')
	case []string:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(String(e))
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(String(k))
			b.WriteString(": ")
			write(b, x[k])
		}
		b.WriteByte('}')
	default:
		writeReflect(b, v)
	}
}

// writeReflect covers typed slices and maps (e.g. []int64) by reflection;
// anything else is printed with %v, which is not Python but readable.
func writeReflect(b *strings.Builder, v any) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		b.WriteByte('[')
		for i := 0; i < rv.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			write(b, rv.Index(i).Interface())
		}
		b.WriteByte(']')
	case reflect.Map:
		keys := rv.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			write(b, k.Interface())
			b.WriteString(": ")
			write(b, rv.MapIndex(k).Interface())
		}
		b.WriteByte('}')
	case reflect.Pointer:
		if rv.IsNil() {
			b.WriteString("None")
			return
		}
		write(b, rv.Elem().Interface())
	default:
		fmt.Fprintf(b, "%v", v)
	}
}

// String returns Python's repr of a str: single quotes unless the text holds
// a single quote and no double quote; backslash, the chosen quote, tab,
// newline and carriage return escaped; other non-printable characters as
// \xhh, \uhhhh or \Uhhhhhhhh; printable non-ASCII kept. Invalid UTF-8 is
// read as U+FFFD (a Python str cannot hold it).
func String(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(quote):
			b.WriteByte('\\')
			b.WriteByte(quote)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x7f && r >= 0x20:
			b.WriteRune(r)
		case printable(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// printable reports whether Python's str.isprintable() holds for r: not in
// the categories Cc, Cf, Cs, Co, Cn, Zl, Zp, and not a space separator other
// than the ASCII space.
func printable(r rune) bool {
	if r == ' ' {
		return true
	}
	if r == utf8.RuneError {
		return true // U+FFFD is printable; invalid bytes were read as it
	}
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Cs, unicode.Co, unicode.Zl, unicode.Zp, unicode.Zs) {
		return false
	}
	// Cn: unassigned code points belong to no category.
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
}

// Bytes returns Python's repr of a bytes value: b'...' with the same quote
// choice as String; \t, \n, \r, \\ and the quote escaped; every other byte
// outside printable ASCII as \xhh.
func Bytes(p []byte) string {
	quote := byte('\'')
	if strings.IndexByte(string(p), '\'') >= 0 && strings.IndexByte(string(p), '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte('b')
	b.WriteByte(quote)
	for _, c := range p {
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == quote:
			b.WriteByte('\\')
			b.WriteByte(quote)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, `\x%02x`, c)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// Float returns Python's repr of a float: the shortest digits that read
// back to the same value, in fixed notation when the decimal exponent is in
// [-4, 16) (with ".0" added to a whole number) and in scientific notation
// otherwise (1e+16, 1e-05); inf, -inf and nan as Python spells them.
func Float(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	// Shortest round-trip digits and exponent: d.ddddde±x.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	sign := ""
	if e[0] == '-' {
		sign = "-"
		e = e[1:]
	}
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	if exp >= -5+1 && exp < 16 { // -4 <= exp < 16
		var s string
		switch {
		case exp < 0:
			s = "0." + strings.Repeat("0", -exp-1) + digits
		case len(digits) <= exp+1:
			s = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
		default:
			s = digits[:exp+1] + "." + digits[exp+1:]
		}
		return sign + s
	}
	m := digits[:1]
	if len(digits) > 1 {
		m += "." + digits[1:]
	}
	es := "+"
	if exp < 0 {
		es = "-"
		exp = -exp
	}
	return fmt.Sprintf("%s%se%s%02d", sign, m, es, exp)
}
