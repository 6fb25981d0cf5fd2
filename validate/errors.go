package validate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lsst-sal/salgo/xml"
)

// The rules a record can break. A [*FieldError] wraps exactly one of them;
// test it with [errors.Is].
var (
	// ErrUnknownField: the record has a key that is not a field of the topic.
	ErrUnknownField = errors.New("validate: unknown field")
	// ErrMissingField: a field is absent and may not be filled with its
	// default (Strict mode, or a field without a default).
	ErrMissingField = errors.New("validate: missing field")
	// ErrType: the value's Go type cannot represent the field's SAL type
	// (a string for a number, a non-integral float for an integer, ...).
	ErrType = errors.New("validate: wrong type")
	// ErrRange: the number is outside the range of the field's SAL type.
	ErrRange = errors.New("validate: value out of range")
	// ErrArrayLength: an array does not have exactly Count elements.
	ErrArrayLength = errors.New("validate: wrong array length")
	// ErrStringLength: a string is longer, in bytes, than its bound.
	ErrStringLength = errors.New("validate: string too long")
	// ErrNull: the value is nil but the field is not nullable.
	ErrNull = errors.New("validate: nil value")
	// ErrEncoding: a string is not valid UTF-8.
	ErrEncoding = errors.New("validate: invalid UTF-8")
)

// FieldError is one problem with one field (or one array element) of a
// record. Its message names the component, topic, field and the rule:
//
//	validate: Example.command_setScalars: field byte0: value 300 out of range for byte (0..255)
type FieldError struct {
	// Component and Topic (the SAL name, e.g. "command_setScalars")
	// identify the topic.
	Component, Topic string
	// Field is the record key at fault.
	Field string
	// Index is the array element at fault, or -1 for the field as a whole.
	Index int
	// Type is the SAL type of the field; 0 for an unknown field.
	Type xml.Type
	// Value is the offending value (the element for an array element); nil
	// for a missing field.
	Value any
	// Rule is the sentinel of the broken rule, e.g. ErrRange.
	Rule error

	msg    string
	record bool // about the whole record, not one field
}

// Error returns "validate: Component.Topic: field name[index]: detail".
func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString("validate: ")
	b.WriteString(e.Component)
	b.WriteByte('.')
	b.WriteString(e.Topic)
	if !e.record {
		b.WriteString(": field ")
		b.WriteString(fieldName(e.Field))
		if e.Index >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.Index))
			b.WriteByte(']')
		}
	}
	b.WriteString(": ")
	switch {
	case e.msg != "":
		b.WriteString(e.msg)
	case e.Rule != nil:
		b.WriteString(strings.TrimPrefix(e.Rule.Error(), "validate: "))
	default:
		b.WriteString("invalid")
	}
	return b.String()
}

// Unwrap returns Rule, so that errors.Is(err, ErrRange) works.
func (e *FieldError) Unwrap() error { return e.Rule }

// FieldErrors returns every *FieldError in err's tree (as built by
// Validate and Normalize: a join of FieldErrors), in order. It returns nil
// for a nil error.
func FieldErrors(err error) []*FieldError {
	var out []*FieldError
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case nil:
		case *FieldError:
			out = append(out, e)
		case interface{ Unwrap() []error }:
			for _, c := range e.Unwrap() {
				walk(c)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	walk(err)
	return out
}

// newError builds the FieldError of field f (nil for an unknown field).
func (v *Validator) newError(name string, f *field, index int, value any, rule error, msg string) *FieldError {
	e := &FieldError{
		Component: v.topic.Component,
		Topic:     v.topic.SALName,
		Field:     name,
		Index:     index,
		Value:     value,
		Rule:      rule,
		msg:       msg,
	}
	if f != nil {
		e.Type = f.typ
	}
	return e
}

// fieldName returns name, quoted unless it is a plain identifier.
func fieldName(name string) string {
	if name == "" {
		return `""`
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return strconv.Quote(name)
		}
	}
	return name
}

const maxDescribe = 64

// describe renders a value for a message: numbers as %v, strings quoted and
// cut, slices by type and length, other values as %v cut.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case string:
		if len(x) > maxDescribe {
			return strconv.Quote(x[:maxDescribe]) + "..."
		}
		return strconv.Quote(x)
	case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, uintptr, float32, float64:
		return fmt.Sprint(x)
	}
	if n, name := anySliceLen(v); n >= 0 {
		return name + " of length " + strconv.Itoa(n)
	}
	s := fmt.Sprint(v)
	if len(s) > maxDescribe {
		s = s[:maxDescribe] + "..."
	}
	return s
}

// describeTyped is describe plus the Go type: `"abc" (string)`.
func describeTyped(v any) string {
	if v == nil {
		return "nil"
	}
	if n, _ := anySliceLen(v); n >= 0 {
		return describe(v)
	}
	return describe(v) + " (" + fmt.Sprintf("%T", v) + ")"
}

// typeText names a field's SAL type, with its length for arrays: "byte",
// "float[156]".
func (f *field) typeText() string {
	if f.kind == kInvalid {
		return f.typ.String()
	}
	s := f.typ.String()
	if f.array {
		s += "[" + strconv.Itoa(f.count) + "]"
	}
	return s
}

// goText names a field's canonical Go type: "uint8", "[]float32".
func (f *field) goText() string {
	if f.array {
		return kinds[f.kind].array
	}
	return kinds[f.kind].scalar
}
