package validate

import (
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/lsst-sal/salgo/xml"
)

// CheckString checks the string s of field of topic (its SAL name, e.g.
// "command_setScalars") of component as Validator.Validate checks a string
// field of a map record: it must be valid UTF-8 (ErrEncoding) and, unless
// unbounded or maxLen <= 0, at most maxLen bytes long (ErrStringLength).
// It returns nil, or the *FieldError Validate reports, byte for byte; a
// string breaking both rules gets both errors, joined in Validate's
// order (length first). It is for the Validate method of generated typed
// records, which check only what Go's types leave to run time.
func CheckString(component, topic, field, s string, maxLen int, unbounded bool) error {
	long := !unbounded && maxLen > 0 && len(s) > maxLen
	if !long && utf8.ValidString(s) {
		return nil // the common case: no allocation
	}
	var errs []error
	if long {
		errs = append(errs, stringError(component, topic, field, s, ErrStringLength, stringLengthMsg(len(s), maxLen)))
	}
	if !utf8.ValidString(s) {
		errs = append(errs, stringError(component, topic, field, s, ErrEncoding, encodingMsg(s)))
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

func stringError(component, topic, field, s string, rule error, msg string) *FieldError {
	return &FieldError{Component: component, Topic: topic, Field: field, Index: -1,
		Type: xml.String, Value: s, Rule: rule, msg: msg}
}

// stringLengthMsg is the ErrStringLength message of a string of n bytes
// over its bound max.
func stringLengthMsg(n, max int) string {
	return "string length " + strconv.Itoa(n) + " bytes exceeds bound " + strconv.Itoa(max)
}

// encodingMsg is the ErrEncoding message of s.
func encodingMsg(s string) string {
	return "string " + describe(s) + " is not valid UTF-8"
}
