// Package avrobin is the Avro binary read cursor shared by internal/codec
// (map records) and topics/wire (the Decoder of generated typed records):
// one implementation of the varint, int, boolean, float, length-prefixed
// and array block readers, with the errors they return, so that both
// decoders accept and reject the same bytes with the same errors. It also
// holds the buffer growth both encoders use.
//
// The sentinels ErrTruncated and ErrInvalid are the values topics/wire
// exports (and internal/codec re-exports); they are created here because
// the readers below return them.
package avrobin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The sentinels, exported by topics/wire under the same names.
var (
	ErrTruncated = errors.New("wire: truncated input")
	ErrInvalid   = errors.New("wire: invalid data")
)

// The details wrapped around the sentinels.
var (
	ErrVarint = fmt.Errorf("%w: varint longer than 10 bytes", ErrInvalid)
	ErrInt    = fmt.Errorf("%w: Avro int outside 32 bits", ErrInvalid)
	ErrNegLen = fmt.Errorf("%w: negative length", ErrInvalid)
	ErrBool   = fmt.Errorf("%w: boolean byte not 0 or 1", ErrInvalid)
	ErrBlock  = fmt.Errorf("%w: bad block count", ErrInvalid)
	ErrCount  = fmt.Errorf("%w: array or map count larger than the remaining input", ErrTruncated)
	ErrUnion  = fmt.Errorf("%w: union index out of range", ErrInvalid)
)

// Reader reads Avro binary values from B starting at Off, which each read
// advances past the value. After an error Off is unspecified; callers stop
// reading. The zero value reads nothing.
type Reader struct {
	B   []byte
	Off int
}

// Long reads an Avro long (a zigzag varint of at most 10 bytes).
func (r *Reader) Long() (int64, error) {
	if r.Off < len(r.B) && r.B[r.Off] < 0x80 {
		u := uint64(r.B[r.Off])
		r.Off++
		return int64(u>>1) ^ -int64(u&1), nil
	}
	var u uint64
	for shift := uint(0); shift < 70; shift += 7 {
		if r.Off >= len(r.B) {
			return 0, ErrTruncated
		}
		c := r.B[r.Off]
		r.Off++
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), nil
		}
	}
	return 0, ErrVarint
}

// Int32 reads an Avro int: a long that must fit in 32 bits.
func (r *Reader) Int32() (int32, error) {
	v, err := r.Long()
	if err != nil {
		return 0, err
	}
	if v != int64(int32(v)) {
		return 0, ErrInt
	}
	return int32(v), nil
}

// Float32 reads an Avro float, its bits kept as on the wire.
func (r *Reader) Float32() (float32, error) {
	if len(r.B)-r.Off < 4 {
		return 0, ErrTruncated
	}
	v := math.Float32frombits(binary.LittleEndian.Uint32(r.B[r.Off:]))
	r.Off += 4
	return v, nil
}

// Float64 reads an Avro double, its bits kept as on the wire.
func (r *Reader) Float64() (float64, error) {
	if len(r.B)-r.Off < 8 {
		return 0, ErrTruncated
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.B[r.Off:]))
	r.Off += 8
	return v, nil
}

// Bool reads an Avro boolean: a byte 0 or 1.
func (r *Reader) Bool() (bool, error) {
	if r.Off >= len(r.B) {
		return false, ErrTruncated
	}
	c := r.B[r.Off]
	if c > 1 {
		return false, ErrBool
	}
	r.Off++
	return c == 1, nil
}

// Bytes reads a length-prefixed string or bytes value; the result aliases
// the input.
func (r *Reader) Bytes() ([]byte, error) {
	n, err := r.Long()
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, ErrNegLen
	}
	if n > int64(len(r.B)-r.Off) {
		return nil, ErrTruncated
	}
	b := r.B[r.Off : r.Off+int(n)]
	r.Off += int(n)
	return b, nil
}

// BlockCount reads an array or map block header and returns the number of
// items (0 at the end). A negative count is followed by the block's size
// in bytes, returned as size (-1 otherwise).
func (r *Reader) BlockCount() (n, size int64, err error) {
	n, err = r.Long()
	if err != nil || n >= 0 {
		return n, -1, err
	}
	if n == math.MinInt64 {
		return 0, 0, ErrBlock
	}
	size, err = r.Long()
	if err != nil {
		return 0, 0, err
	}
	if size < 0 {
		return 0, 0, ErrBlock
	}
	return -n, size, nil
}

// ItemCount reads a block header of an array whose items take at least
// minSize bytes each and checks the count against the remaining input
// (ErrCount, which wraps ErrTruncated, if it is larger). It returns 0 at
// the end of the array; a block's byte size, which follows a negative
// count, is read and ignored. It is BlockCount written out, not called:
// it runs once per array block of every decode.
func (r *Reader) ItemCount(minSize int) (int, error) {
	n, err := r.Long()
	if err != nil {
		return 0, err
	}
	if n < 0 {
		if n == math.MinInt64 {
			return 0, ErrBlock
		}
		n = -n
		size, err := r.Long()
		if err != nil {
			return 0, err
		}
		if size < 0 {
			return 0, ErrBlock
		}
	}
	if n > int64((len(r.B)-r.Off)/minSize) {
		return 0, ErrCount
	}
	return int(n), nil
}

// Integer is the Go types of SAL integer arrays, all stored as Avro int or
// long.
type Integer interface {
	~uint8 | ~int16 | ~int32 | ~int64 | ~uint16 | ~uint32
}

// Grow makes room for n more bytes in b with at most one allocation.
func Grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), len(b)+n)
	copy(nb, b)
	return nb
}
