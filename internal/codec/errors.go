package codec

import (
	"errors"
	"sync/atomic"

	"github.com/lsst-sal/salgo/topics/wire"
)

// Decoding and resolution errors; match them with errors.Is. Decode errors
// are *DecodeError values wrapping ErrTruncated, ErrInvalid or ErrTrailing,
// which are topics/wire's sentinels: a body that fails to decode into a
// map record and into a generated typed record matches the same target.
var (
	// ErrTruncated reports a body that ends in the middle of a value.
	ErrTruncated = wire.ErrTruncated
	// ErrInvalid reports bytes that are not a valid encoding of the
	// schema: an over-long varint, an int outside 32 bits, a boolean byte
	// other than 0 or 1, a union index out of range, a negative length, an
	// array count larger than the remaining input can hold, or a value of
	// a writer union branch the reader cannot read.
	ErrInvalid = wire.ErrInvalid
	// ErrTrailing reports bytes left over after the last field of the
	// record. The reference writes nothing after a record, so leftover
	// bytes mean the body and the schema do not match.
	ErrTrailing = wire.ErrTrailing
	// ErrIncompatible reports a writer schema that cannot be resolved
	// against the reader topic (NewResolving).
	ErrIncompatible = errors.New("codec: writer schema incompatible with reader")
)

// FieldError reports a record value that Append cannot encode: a missing
// key or a value that is not the field's canonical Go type.
type FieldError struct {
	Topic string // "Component.salName"
	Field string
	Want  string // the canonical Go type, e.g. "[]float32" or "float64 or nil"
	Got   string // the Go type found, or "missing"
}

func (e *FieldError) Error() string {
	return "codec: " + e.Topic + ": field " + e.Field + ": want " + e.Want + ", got " + e.Got
}

// DecodeError reports a body that cannot be decoded: topics/wire's, so
// that a record decoded into a map and one decoded into a generated type
// fail with the same error. Err is ErrTruncated, ErrInvalid or
// ErrTrailing, possibly wrapped with details.
type DecodeError = wire.DecodeError

// Issues counts values that a successful decode could not deliver exactly.
// The record is complete and usable; the counts tell the reader that some
// values were altered so it can log or count them.
type Issues struct {
	// OutOfRange counts integers outside the range of the field's
	// canonical Go type (e.g. 300 in a SAL byte field, -1 in an unsigned
	// int field), written by another writer. They are stored converted
	// with Go's conversion rules, i.e. truncated to the low bits
	// (uint8(300) == 44).
	OutOfRange int64
	// NullDefaults counts nulls read from a writer union for a reader
	// field (or array item) that is not nullable; the reader default (0,
	// false, "" ...) was stored instead. Only a resolving Decoder can see
	// them.
	NullDefaults int64
	// Field names the first field with an issue ("" if none). Stats leaves
	// it empty.
	Field string
}

// Zero reports whether no issue was counted.
func (i Issues) Zero() bool { return i.OutOfRange == 0 && i.NullDefaults == 0 }

type issueCounters struct {
	outOfRange   atomic.Int64
	nullDefaults atomic.Int64
}

func (c *issueCounters) add(i *Issues) {
	if i.OutOfRange != 0 {
		c.outOfRange.Add(i.OutOfRange)
	}
	if i.NullDefaults != 0 {
		c.nullDefaults.Add(i.NullDefaults)
	}
}

func (c *issueCounters) load() Issues {
	return Issues{OutOfRange: c.outOfRange.Load(), NullDefaults: c.nullDefaults.Load()}
}
