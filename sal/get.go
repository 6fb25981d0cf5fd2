package sal

import (
	"errors"
	"fmt"
)

// ErrNoField is returned by Get for a field the record does not hold.
var ErrNoField = errors.New("sal: no such field in the record")

// ErrFieldType is returned by Get when the field holds another Go type
// than the one asked for.
var ErrFieldType = errors.New("sal: field holds another type")

// Get returns rec[field] as a T. Records hold one canonical Go type per
// SAL type (package validate: a SAL byte is a uint8, an int and a long
// are int32, a double is a float64, arrays are slices), and a comparison
// with a value of another type is silently false:
// rec["state"] == int32(8) never holds for a uint8 field. Get says so
// instead: its error names the field and both types, and matches
// ErrFieldType (or ErrNoField for a field the record lacks).
//
//	state, err := sal.Get[uint8](rec, "state")
func Get[T any](rec map[string]any, field string) (T, error) {
	var zero T
	v, ok := rec[field]
	if !ok {
		return zero, fmt.Errorf("sal: field %q: %w", field, ErrNoField)
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("sal: field %q holds a %T (%v), not a %T: %w", field, v, v, zero, ErrFieldType)
	}
	return t, nil
}
