package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// maxDepth bounds the nesting of values, so that recursive writer schemas
// cannot exhaust the stack.
const maxDepth = 256

// dstate is the state of one decode.
type dstate struct {
	b      []byte
	off    int
	depth  int
	issues Issues
	// f32 and f64 are the unused parts of the shared backing array of a
	// fresh decode, whose slots hold array items and boxed scalars; hdr
	// is the unused part of the slice header slab (see box.go).
	f32 []float32
	f64 []float64
	hdr []sliceHdr
}

var (
	errVarint  = fmt.Errorf("%w: varint longer than 10 bytes", ErrInvalid)
	errInt     = fmt.Errorf("%w: Avro int outside 32 bits", ErrInvalid)
	errNegLen  = fmt.Errorf("%w: negative length", ErrInvalid)
	errBool    = fmt.Errorf("%w: boolean byte not 0 or 1", ErrInvalid)
	errBlock   = fmt.Errorf("%w: bad block count", ErrInvalid)
	errDepth   = fmt.Errorf("%w: values nested deeper than %d", ErrInvalid, maxDepth)
	errCount   = fmt.Errorf("%w: array or map count larger than the remaining input", ErrTruncated)
	errUnion   = fmt.Errorf("%w: union index out of range", ErrInvalid)
	errCorrupt = errors.New("codec: internal error: bad decoder node")
)

func (s *dstate) long() (int64, error) {
	if s.off < len(s.b) && s.b[s.off] < 0x80 {
		u := uint64(s.b[s.off])
		s.off++
		return int64(u>>1) ^ -int64(u&1), nil
	}
	var u uint64
	for shift := uint(0); shift < 70; shift += 7 {
		if s.off >= len(s.b) {
			return 0, ErrTruncated
		}
		c := s.b[s.off]
		s.off++
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), nil
		}
	}
	return 0, errVarint
}

func (s *dstate) int32() (int32, error) {
	v, err := s.long()
	if err != nil {
		return 0, err
	}
	if v != int64(int32(v)) {
		return 0, errInt
	}
	return int32(v), nil
}

func (s *dstate) float32() (float32, error) {
	if len(s.b)-s.off < 4 {
		return 0, ErrTruncated
	}
	v := math.Float32frombits(binary.LittleEndian.Uint32(s.b[s.off:]))
	s.off += 4
	return v, nil
}

func (s *dstate) float64() (float64, error) {
	if len(s.b)-s.off < 8 {
		return 0, ErrTruncated
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(s.b[s.off:]))
	s.off += 8
	return v, nil
}

func (s *dstate) bool() (bool, error) {
	if s.off >= len(s.b) {
		return false, ErrTruncated
	}
	c := s.b[s.off]
	if c > 1 {
		return false, errBool
	}
	s.off++
	return c == 1, nil
}

// bytes reads a length-prefixed string or bytes value; the result aliases
// the input.
func (s *dstate) bytes() ([]byte, error) {
	n, err := s.long()
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, errNegLen
	}
	if n > int64(len(s.b)-s.off) {
		return nil, ErrTruncated
	}
	b := s.b[s.off : s.off+int(n)]
	s.off += int(n)
	return b, nil
}

// blockCount reads an array or map block header and returns the number of
// items (0 at the end). A negative count is followed by the block's size
// in bytes, returned as size (-1 otherwise).
func (s *dstate) blockCount() (n, size int64, err error) {
	n, err = s.long()
	if err != nil || n >= 0 {
		return n, -1, err
	}
	if n == math.MinInt64 {
		return 0, 0, errBlock
	}
	size, err = s.long()
	if err != nil {
		return 0, 0, err
	}
	if size < 0 {
		return 0, 0, errBlock
	}
	return -n, size, nil
}

// itemCount reads a block header of an array whose items take at least
// minSize bytes each and checks the count against the remaining input.
func (s *dstate) itemCount(minSize int) (int, error) {
	n, _, err := s.blockCount()
	if err != nil {
		return 0, err
	}
	if n > int64((len(s.b)-s.off)/minSize) {
		return 0, errCount
	}
	return int(n), nil
}
