package codec

import (
	"fmt"
	"math"

	"github.com/lsst-sal/salgo/internal/avrobin"
	"github.com/lsst-sal/salgo/xml"
)

// branch reads a union index and returns the node of the branch.
func (s *dstate) branch(n *node) (*node, error) {
	i, err := s.Int32()
	if err != nil {
		return nil, err
	}
	if i < 0 || int(i) >= len(n.alts) {
		return nil, avrobin.ErrUnion
	}
	alt := n.alts[i]
	if alt.op == opBad {
		return nil, fmt.Errorf("%w: %s", ErrInvalid, alt.msg)
	}
	return alt, nil
}

// value reads one reader field value. old is the current map value when
// reuse is set; inPlace reports that old was reused and still holds the
// value.
func (s *dstate) value(n *node, old any, reuse bool) (any, bool, error) {
	if n.op == opUnion {
		var err error
		if n, err = s.branch(n); err != nil {
			return nil, false, err
		}
	}
	switch n.op {
	case opScalar:
		v, err := s.scalar(n)
		return v, false, err
	case opArray:
		return s.array(n, old, reuse)
	case opNull:
		if !n.nullable {
			s.issues.NullDefaults++
		}
		v, inPlace := defaultValue(n, old, reuse)
		return v, inPlace, nil
	}
	return nil, false, errCorrupt
}

// scalar reads a scalar, boxed from the slabs when they have room (see
// box.go).
func (s *dstate) scalar(n *node) (any, error) {
	switch n.sal {
	case xml.Boolean:
		return itemBool(s, n)
	case xml.Byte:
		return itemU8(s, n)
	case xml.Short:
		v, err := itemI16(s, n)
		return boxSmall(&s.f32, typInt16, v), err
	case xml.Int, xml.Long:
		v, err := itemI32(s, n)
		return s.boxI32(v), err
	case xml.LongLong:
		v, err := itemI64(s, n)
		return boxSmall(&s.f64, typInt64, v), err
	case xml.UnsignedShort:
		v, err := itemU16(s, n)
		return boxSmall(&s.f32, typUint16, v), err
	case xml.UnsignedInt:
		v, err := itemU32(s, n)
		return boxSmall(&s.f32, typUint32, v), err
	case xml.Float:
		v, err := itemF32(s, n)
		return s.boxF32(v), err
	case xml.Double:
		v, err := itemF64(s, n)
		return s.boxF64(v), err
	case xml.String:
		return itemString(s, n)
	}
	return nil, errCorrupt
}

// item resolves a union item to its branch. It returns nil for a null
// branch, which it counts as a null replaced by the default.
func (s *dstate) item(n *node) (*node, error) {
	if n.op != opUnion {
		return n, nil
	}
	alt, err := s.branch(n)
	if err != nil {
		return nil, err
	}
	if alt.op == opNull {
		s.issues.NullDefaults++
		return nil, nil
	}
	return alt, nil
}

// intItem reads a writer int or long.
func (s *dstate) intItem(n *node) (int64, error) {
	n, err := s.item(n)
	if n == nil {
		return 0, err
	}
	switch n.w {
	case pInt:
		v, err := s.Int32()
		return int64(v), err
	case pLong:
		return s.Long()
	}
	return 0, errCorrupt
}

func (s *dstate) outOfRange() { s.issues.OutOfRange++ }

func itemU8(s *dstate, n *node) (uint8, error) {
	v, err := s.intItem(n)
	if v < 0 || v > math.MaxUint8 {
		s.outOfRange()
	}
	return uint8(v), err
}

func itemI16(s *dstate, n *node) (int16, error) {
	v, err := s.intItem(n)
	if v < math.MinInt16 || v > math.MaxInt16 {
		s.outOfRange()
	}
	return int16(v), err
}

func itemI32(s *dstate, n *node) (int32, error) {
	v, err := s.intItem(n)
	if v < math.MinInt32 || v > math.MaxInt32 {
		s.outOfRange()
	}
	return int32(v), err
}

func itemI64(s *dstate, n *node) (int64, error) { return s.intItem(n) }

func itemU16(s *dstate, n *node) (uint16, error) {
	v, err := s.intItem(n)
	if v < 0 || v > math.MaxUint16 {
		s.outOfRange()
	}
	return uint16(v), err
}

func itemU32(s *dstate, n *node) (uint32, error) {
	v, err := s.intItem(n)
	if v < 0 || v > math.MaxUint32 {
		s.outOfRange()
	}
	return uint32(v), err
}

func itemF32(s *dstate, n *node) (float32, error) {
	n, err := s.item(n)
	if n == nil {
		return 0, err
	}
	switch n.w {
	case pFloat:
		return s.Float32()
	case pInt:
		v, err := s.Int32()
		return float32(v), err
	case pLong:
		v, err := s.Long()
		return float32(v), err
	}
	return 0, errCorrupt
}

func itemF64(s *dstate, n *node) (float64, error) {
	n, err := s.item(n)
	if n == nil {
		return 0, err
	}
	switch n.w {
	case pDouble:
		return s.Float64()
	case pFloat:
		v, err := s.Float32()
		return float64(v), err
	case pInt:
		v, err := s.Int32()
		return float64(v), err
	case pLong:
		v, err := s.Long()
		return float64(v), err
	}
	return 0, errCorrupt
}

func itemBool(s *dstate, n *node) (bool, error) {
	n, err := s.item(n)
	if n == nil {
		return false, err
	}
	return s.Bool()
}

func itemString(s *dstate, n *node) (string, error) {
	n, err := s.item(n)
	if n == nil {
		return "", err
	}
	b, err := s.Bytes()
	return string(b), err
}
