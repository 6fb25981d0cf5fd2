package cli

// Field values typed on a command line or in JSON.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	salxml "github.com/lsst-sal/salgo/xml"
)

// ParseValue parses text as a value of field f, in the field's canonical
// Go type (see package validate):
//   - boolean: true/false, t/f, 1/0, yes/no, on/off (any case);
//   - integers: decimal, 0x hex, 0o octal or 0b binary, within the type's
//     range, or a name of the field's enumeration en (may be nil);
//   - float and double: decimal or exponent notation, NaN, Inf, +Inf,
//     -Inf, Infinity (any case);
//   - string: the text as it is;
//   - an array (Count > 1): Count elements separated by commas, with or
//     without [ ] around them: 1,2,3 or [1, 2, 3] or a JSON array.
//
// The error names the field, its type and what was wrong.
func ParseValue(f *salxml.Field, en *Enum, text string) (any, error) {
	if !f.IsArray() || f.Type == salxml.String {
		return parseScalar(f, en, text)
	}
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = s[1 : len(s)-1]
	}
	var parts []string
	if strings.TrimSpace(s) != "" {
		parts = strings.Split(s, ",")
	}
	if len(parts) != f.Count {
		return nil, fmt.Errorf("field %s: want %d values (%s[%d], comma separated), got %d in %q", f.Name, f.Count, f.Type, f.Count, len(parts), text)
	}
	vals := make([]any, len(parts))
	for i, p := range parts {
		v, err := parseScalar(f, en, strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Errorf("%w (element %d of %d)", err, i, f.Count)
		}
		vals[i] = v
	}
	switch f.Type {
	case salxml.Boolean:
		return typed[bool](vals), nil
	case salxml.Byte:
		return typed[uint8](vals), nil
	case salxml.Short:
		return typed[int16](vals), nil
	case salxml.Int, salxml.Long:
		return typed[int32](vals), nil
	case salxml.LongLong:
		return typed[int64](vals), nil
	case salxml.UnsignedShort:
		return typed[uint16](vals), nil
	case salxml.UnsignedInt:
		return typed[uint32](vals), nil
	case salxml.Float:
		return typed[float32](vals), nil
	case salxml.Double:
		return typed[float64](vals), nil
	}
	return vals, nil
}

func typed[T any](vals []any) []T {
	out := make([]T, len(vals))
	for i, v := range vals {
		out[i] = v.(T)
	}
	return out
}

// intBits is the range of each integer type: bits, and whether unsigned.
var intBits = map[salxml.Type]struct {
	bits     int
	unsigned bool
}{
	salxml.Byte: {8, true}, salxml.Short: {16, false}, salxml.Int: {32, false}, salxml.Long: {32, false},
	salxml.LongLong: {64, false}, salxml.UnsignedShort: {16, true}, salxml.UnsignedInt: {32, true},
}

func parseScalar(f *salxml.Field, en *Enum, s string) (any, error) {
	switch f.Type {
	case salxml.String:
		return s, nil
	case salxml.Boolean:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "t", "1", "yes", "y", "on":
			return true, nil
		case "false", "f", "0", "no", "n", "off":
			return false, nil
		}
		return nil, fmt.Errorf("field %s: %q is not a boolean (true or false, 1 or 0)", f.Name, s)
	case salxml.Float, salxml.Double:
		bits := 64
		if f.Type == salxml.Float {
			bits = 32
		}
		x, err := ParseFloat(s, bits)
		if err != nil {
			return nil, fmt.Errorf("field %s: %q is not %s %s (a number, NaN, Inf or -Inf)", f.Name, s, article(f.Type), f.Type)
		}
		if bits == 32 {
			return float32(x), nil
		}
		return x, nil
	}
	r, ok := intBits[f.Type]
	if !ok {
		return nil, fmt.Errorf("field %s: type %s cannot be given on a command line", f.Name, f.Type)
	}
	s = strings.TrimSpace(s)
	var v int64
	var err error
	if r.unsigned {
		var u uint64
		u, err = strconv.ParseUint(s, 0, r.bits)
		v = int64(u)
	} else {
		v, err = strconv.ParseInt(s, 0, r.bits)
	}
	if err != nil {
		if en != nil {
			if ev, ok := en.Value(s); ok {
				v, err = ev, nil
			}
		}
	}
	if err != nil {
		lo, hi := intRange(r.bits, r.unsigned)
		msg := fmt.Sprintf("field %s: %q is not %s %s (a whole number from %d to %d", f.Name, s, article(f.Type), f.Type, lo, hi)
		if en != nil {
			msg += ", or one of " + strings.Join(en.Names(), ", ")
		}
		return nil, fmt.Errorf("%s)", msg)
	}
	switch f.Type {
	case salxml.Byte:
		return uint8(v), nil
	case salxml.Short:
		return int16(v), nil
	case salxml.Int, salxml.Long:
		return int32(v), nil
	case salxml.UnsignedShort:
		return uint16(v), nil
	case salxml.UnsignedInt:
		return uint32(v), nil
	}
	return v, nil
}

// article is "a" or "an" before the name of t.
func article(t salxml.Type) string {
	if strings.ContainsRune("aeiou", rune(t.String()[0])) {
		return "an"
	}
	return "a"
}

func intRange(bits int, unsigned bool) (int64, uint64) {
	if unsigned {
		return 0, 1<<bits - 1
	}
	return -1 << (bits - 1), 1<<(bits-1) - 1
}

// ParseFloat parses a float as strconv.ParseFloat does (which accepts
// NaN, Inf, +Inf, -Inf and Infinity in any case), and also the JSON
// spellings JSONValue writes for them ("NaN", "Infinity", "-Infinity").
func ParseFloat(s string, bits int) (float64, error) {
	return strconv.ParseFloat(strings.TrimSpace(s), bits)
}

// JSONFloats turns, in a record decoded from JSON, the strings that stand
// for non-finite numbers in t's float and double fields ("NaN",
// "Infinity", "-Infinity", as JSONValue writes them, or "Inf", "+Inf" in
// any case), scalars and array elements, into numbers. Other values are
// left for the validator to judge.
func JSONFloats(t *salxml.Topic, rec map[string]any) {
	conv := func(v any) any {
		if s, ok := v.(string); ok {
			if x, err := ParseFloat(s, 64); err == nil && (math.IsNaN(x) || math.IsInf(x, 0)) {
				return x
			}
		}
		return v
	}
	for _, f := range t.Fields {
		if f.Type != salxml.Float && f.Type != salxml.Double {
			continue
		}
		switch v := rec[f.Name].(type) {
		case string:
			rec[f.Name] = conv(v)
		case []any:
			for i := range v {
				v[i] = conv(v[i])
			}
		}
	}
}

// IntValue is v as the canonical Go type of integer SAL type t.
func IntValue(t salxml.Type, v int64) any {
	switch t {
	case salxml.Byte:
		return uint8(v)
	case salxml.Short:
		return int16(v)
	case salxml.Int, salxml.Long:
		return int32(v)
	case salxml.UnsignedShort:
		return uint16(v)
	case salxml.UnsignedInt:
		return uint32(v)
	}
	return v
}

// EnumValues puts, in a generated record of t (validate's Random), a
// value of each enumerated integer field's enumeration in place of the
// random number: a summaryState of the demo writers is a state, not 73.
// Arrays get one entry per element. pick chooses an index below n.
func EnumValues(t *salxml.Topic, enums *Enums, rec map[string]any, pick func(n int) int) {
	for _, f := range t.Fields {
		en := enums.Field(t.SALName, f.Name)
		if en == nil || len(en.Entries) == 0 || f.Private {
			continue
		}
		one := func() int64 { return en.Entries[pick(len(en.Entries))].Value }
		if !f.IsArray() {
			rec[f.Name] = IntValue(f.Type, one())
			continue
		}
		vals := make([]any, f.Count)
		for i := range vals {
			vals[i] = IntValue(f.Type, one())
		}
		switch f.Type {
		case salxml.Byte:
			rec[f.Name] = typed[uint8](vals)
		case salxml.Short:
			rec[f.Name] = typed[int16](vals)
		case salxml.Int, salxml.Long:
			rec[f.Name] = typed[int32](vals)
		case salxml.LongLong:
			rec[f.Name] = typed[int64](vals)
		case salxml.UnsignedShort:
			rec[f.Name] = typed[uint16](vals)
		case salxml.UnsignedInt:
			rec[f.Name] = typed[uint32](vals)
		}
	}
}

// FieldArgs parses the field values of topic t given as words, as the
// salctl commander takes them: positional values first, in the order of
// t's fields, then FIELD=VALUE pairs, each parsed with ParseValue (en gives
// the enumerations, which may be nil). An unknown field is a UsageError
// naming the close matches.
func FieldArgs(t *salxml.Topic, en *Enums, words []string) (map[string]any, error) {
	fields := t.UserFields()
	var names []string
	for _, f := range fields {
		names = append(names, f.Name)
	}
	enum := func(f *salxml.Field) *Enum {
		if en == nil {
			return nil
		}
		return en.Field(t.SALName, f.Name)
	}
	m := map[string]any{}
	npos, keyed := 0, false
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok && isIdent(k) {
			f := t.Field(k)
			if f == nil || f.Private {
				if cl := salxml.Closest(k, names); len(cl) > 0 {
					return nil, Usagef("%s has no field %q (did you mean %s?)", t.Name(), k, strings.Join(cl, ", "))
				}
				return nil, Usagef("%s has no field %q; its fields: %s", t.Name(), k, fieldList(names))
			}
			if _, dup := m[k]; dup {
				return nil, Usagef("field %s given twice", k)
			}
			val, err := ParseValue(f, enum(f), v)
			if err != nil {
				return nil, UsageError{err.Error()}
			}
			m[k], keyed = val, true
			continue
		}
		if keyed {
			return nil, Usagef("%q after FIELD=VALUE arguments: give the positional values first", w)
		}
		if npos >= len(fields) {
			return nil, Usagef("%s takes %d values (%s), got %d", t.Name(), len(fields), fieldList(names), len(words))
		}
		f := fields[npos]
		val, err := ParseValue(f, enum(f), w)
		if err != nil {
			return nil, UsageError{err.Error()}
		}
		m[f.Name] = val
		npos++
	}
	return m, nil
}

// fieldList is names for a message, or "none".
func fieldList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, " ")
}

// isIdent reports whether s is a field name: a letter or _ then letters,
// digits or _.
func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}
