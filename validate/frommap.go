package validate

import (
	"errors"

	"github.com/lsst-sal/salgo/xml"
)

// Fields collects the errors of reading a map record into typed fields,
// as the FromMap methods of the records cmd/salgen generates do with Get,
// GetNullable and GetArray: each problem is a *FieldError, as Validate
// reports it.
type Fields struct {
	// Component and Topic (the SAL name) name the record in the errors.
	Component, Topic string
	errs             []error
}

func (e *Fields) add(field string, typ xml.Type, v any, rule error) {
	e.errs = append(e.errs, &FieldError{Component: e.Component, Topic: e.Topic, Field: field, Index: -1, Type: typ, Value: v, Rule: rule})
}

// Err returns the errors collected, joined, or nil.
func (e *Fields) Err() error { return errors.Join(e.errs...) }

// Get sets *dst from src[field]: the zero value when absent, or when of
// another type than T (an error matching ErrType).
func Get[T any](e *Fields, src map[string]any, field string, typ xml.Type, dst *T) {
	v, ok := src[field]
	if !ok {
		var zero T
		*dst = zero
		return
	}
	x, ok := v.(T)
	*dst = x
	if !ok {
		e.add(field, typ, v, ErrType)
	}
}

// GetNullable sets *dst from src[field]: nil when absent or nil, or when
// of another type than T (an error matching ErrType).
func GetNullable[T any](e *Fields, src map[string]any, field string, typ xml.Type, dst **T) {
	v, ok := src[field]
	if !ok || v == nil {
		*dst = nil
		return
	}
	x, ok := v.(T)
	if !ok {
		*dst = nil
		e.add(field, typ, v, ErrType)
		return
	}
	*dst = &x
}

// GetArray fills dst from the slice src[field]: zero when absent or of
// another type (an error matching ErrType); the elements both have when
// of another length (an error matching ErrArrayLength).
func GetArray[T any](e *Fields, src map[string]any, field string, typ xml.Type, dst []T) {
	v, ok := src[field]
	clear(dst)
	if !ok {
		return
	}
	x, ok := v.([]T)
	if !ok {
		e.add(field, typ, v, ErrType)
		return
	}
	copy(dst, x)
	if len(x) != len(dst) {
		e.add(field, typ, v, ErrArrayLength)
	}
}
