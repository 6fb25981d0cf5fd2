package wire

import (
	"errors"
	"strconv"
	"strings"

	"github.com/lsst-sal/salgo/internal/avrobin"
)

// Decoding errors; match them with errors.Is. Decoder reports them inside
// a *DecodeError. internal/codec's sentinels are these same values, so a
// record decoded through a map or through a generated type fails with
// errors that match the same targets.
//
// ErrTruncated and ErrInvalid are errors.New("wire: truncated input") and
// errors.New("wire: invalid data"), created by the read primitives this
// package shares with internal/codec.
var (
	// ErrTruncated reports a body that ends in the middle of a value,
	// including an array block count larger than the remaining input can
	// hold (as internal/codec reports it).
	ErrTruncated = errTruncated
	// ErrInvalid reports bytes that are not a valid encoding of the
	// schema: an over-long varint, an int outside 32 bits, a boolean byte
	// other than 0 or 1, a union index out of range, a negative length or
	// a bad array block count (the most negative long, or a negative byte
	// size).
	ErrInvalid = errInvalid
	// ErrTrailing reports bytes left over after the last field of the
	// record. The reference writes nothing after a record, so leftover
	// bytes mean the body and the schema do not match.
	ErrTrailing = errors.New("wire: trailing bytes after the record")
)

// The sentinels of the shared read primitives, which return them. They are
// named here, not in the exported declarations above, because a public
// declaration must not name an internal package (internal/archtest): its
// docs would point where go doc cannot follow.
var (
	errTruncated = avrobin.ErrTruncated
	errInvalid   = avrobin.ErrInvalid
)

// DecodeError reports a body that cannot be decoded. Err is ErrTruncated,
// ErrInvalid or ErrTrailing, possibly wrapped with details. Its text is
// that of internal/codec's DecodeError for the same input, so that a
// record decoded through a generated type logs as one decoded into a map.
type DecodeError struct {
	Topic  string // "Component.salName"
	Field  string // the field being read ("" for ErrTrailing)
	Offset int    // byte offset in the body where the problem was found
	Err    error
}

func (e *DecodeError) Error() string {
	s := "codec: " + e.Topic
	if e.Field != "" {
		s += ": field " + e.Field
	}
	return s + " at byte " + strconv.Itoa(e.Offset) + ": " + trimPrefix(e.Err.Error())
}

func (e *DecodeError) Unwrap() error { return e.Err }

// trimPrefix removes the package prefix ("wire: " or "codec: ") of an
// error text, as DecodeError does for the error it wraps.
func trimPrefix(s string) string {
	if t, ok := strings.CutPrefix(s, "wire: "); ok {
		return t
	}
	return strings.TrimPrefix(s, "codec: ")
}
