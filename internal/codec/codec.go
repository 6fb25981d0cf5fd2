package codec

import (
	"fmt"

	"github.com/lsst-sal/salgo/internal/avrobin"
	"github.com/lsst-sal/salgo/topics/wire"
	"github.com/lsst-sal/salgo/xml"
)

// stringHint is the number of bytes SizeHint allows for each string.
const stringHint = 64

// Codec encodes and decodes the Avro body of one topic's records. It is
// compiled once per topic by New and is safe for concurrent use.
type Codec struct {
	topic string
	enc   []encOp
	hint  int
	dec   *Decoder
}

// encOp encodes one field.
type encOp struct {
	name     string
	kind     kind
	nullable bool
}

// kind is the canonical Go type of a field value.
type kind uint8

const (
	kBool kind = iota
	kU8
	kI16
	kI32
	kI64
	kU16
	kU32
	kF32
	kF64
	kString
	kBools
	kU8s
	kI16s
	kI32s
	kI64s
	kU16s
	kU32s
	kF32s
	kF64s
	kStrings
)

var kindNames = [...]string{
	kBool: "bool", kU8: "uint8", kI16: "int16", kI32: "int32", kI64: "int64",
	kU16: "uint16", kU32: "uint32", kF32: "float32", kF64: "float64", kString: "string",
	kBools: "[]bool", kU8s: "[]uint8", kI16s: "[]int16", kI32s: "[]int32", kI64s: "[]int64",
	kU16s: "[]uint16", kU32s: "[]uint32", kF32s: "[]float32", kF64s: "[]float64", kStrings: "[]string",
}

func (k kind) String() string { return kindNames[k] }

// scalarKind maps a SAL type to the kind of its canonical Go value.
func scalarKind(t xml.Type) (kind, bool) {
	switch t {
	case xml.Boolean:
		return kBool, true
	case xml.Byte:
		return kU8, true
	case xml.Short:
		return kI16, true
	case xml.Int, xml.Long:
		return kI32, true
	case xml.LongLong:
		return kI64, true
	case xml.UnsignedShort:
		return kU16, true
	case xml.UnsignedInt:
		return kU32, true
	case xml.Float:
		return kF32, true
	case xml.Double:
		return kF64, true
	case xml.String:
		return kString, true
	}
	return 0, false
}

// fieldKind returns the kind of a field's canonical value.
func fieldKind(f *xml.Field) (kind, bool) {
	k, ok := scalarKind(f.Type)
	if ok && f.Count > 1 {
		k += kBools - kBool
	}
	return k, ok
}

// maxSize is the largest encoding of one scalar of kind k (k a scalar kind);
// strings count as stringHint bytes plus their length.
func maxSize(k kind) int {
	switch k {
	case kBool:
		return 1
	case kU8, kI16, kI32, kU16:
		return 5
	case kI64, kU32:
		return 10
	case kF32:
		return 4
	case kF64:
		return 8
	}
	return 5 + stringHint
}

// New compiles the codec of topic t. It checks that every field has a
// known type and a unique, non-empty name. A Count of 0 or 1 is a scalar.
func New(t *xml.Topic) (*Codec, error) {
	if t == nil {
		return nil, fmt.Errorf("codec: nil topic")
	}
	c := &Codec{topic: t.String(), enc: make([]encOp, 0, len(t.Fields))}
	seen := make(map[string]bool, len(t.Fields))
	for i, f := range t.Fields {
		if f == nil {
			return nil, fmt.Errorf("codec: %s: field %d is nil", c.topic, i)
		}
		if f.Name == "" {
			return nil, fmt.Errorf("codec: %s: field %d has no name", c.topic, i)
		}
		if seen[f.Name] {
			return nil, fmt.Errorf("codec: %s: duplicate field %s", c.topic, f.Name)
		}
		seen[f.Name] = true
		k, ok := fieldKind(f)
		if !ok {
			return nil, fmt.Errorf("codec: %s: field %s has unknown type %v", c.topic, f.Name, f.Type)
		}
		c.enc = append(c.enc, encOp{name: f.Name, kind: k, nullable: f.Nullable})
		sk, _ := scalarKind(f.Type)
		n := maxSize(sk)
		if f.Count > 1 {
			n = len(wire.AppendLong(nil, int64(f.Count))) + f.Count*n + 1
		}
		if f.Nullable {
			n++
		}
		c.hint += n
	}
	c.dec = newNativeDecoder(t, c.topic)
	return c, nil
}

// Topic returns the "Component.salName" of the codec's topic.
func (c *Codec) Topic() string { return c.topic }

// SizeHint returns a buffer size that holds the body of any record of the
// topic whose arrays have their Count elements and whose strings have at
// most 64 bytes each. Append into make([]byte, 0, c.SizeHint()) never
// reallocates for such records.
func (c *Codec) SizeHint() int { return c.hint }

// Append appends the Avro binary body of rec to dst and returns the
// extended buffer. Fields are written in the topic's order; each value
// must have the field's canonical Go type (bool, uint8, int16, int32,
// int64, uint16, uint32, float32, float64, string, or a slice of one of
// them for arrays; for a nullable field an untyped nil, written as null,
// or the canonical value; a nil slice is an empty array, not null). Keys
// not in the topic are ignored. Array lengths are not checked (the
// validate package does that): a slice is written with the length it has.
// Arrays are written as one block (count, items, 0), an empty array as a
// single 0, which is what fastavro writes. A NaN float or double is
// written as the canonical quiet NaN, as ts_salobj writes Python's NaN.
//
// If dst lacks SizeHint bytes of spare capacity Append first grows it once.
// On error (a *FieldError) Append returns dst unchanged.
func (c *Codec) Append(dst []byte, rec map[string]any) ([]byte, error) {
	start := len(dst)
	dst = avrobin.Grow(dst, c.hint)
	for i := range c.enc {
		op := &c.enc[i]
		v, ok := rec[op.name]
		if !ok {
			return dst[:start], c.fieldError(op, "missing")
		}
		var err error
		if dst, err = c.appendValue(dst, op, v); err != nil {
			return dst[:start], err
		}
	}
	return dst, nil
}

// AppendValues is Append of a record given as its values in the topic's
// field order (vals[i] is the value of field i), as
// validate.Validator.Values gathers them: the record's fields are then
// looked up once, not once to validate and again to encode. It fails if
// len(vals) is not the number of fields.
func (c *Codec) AppendValues(dst []byte, vals []any) ([]byte, error) {
	if len(vals) != len(c.enc) {
		return dst, fmt.Errorf("codec: %s: %d values for %d fields", c.topic, len(vals), len(c.enc))
	}
	start := len(dst)
	dst = avrobin.Grow(dst, c.hint)
	for i := range c.enc {
		var err error
		if dst, err = c.appendValue(dst, &c.enc[i], vals[i]); err != nil {
			return dst[:start], err
		}
	}
	return dst, nil
}

// appendValue appends the encoding of v as the value of op's field; on
// error dst may hold part of it.
func (c *Codec) appendValue(dst []byte, op *encOp, v any) ([]byte, error) {
	if op.nullable {
		if v == nil {
			return append(dst, 0), nil // union branch 0: null
		}
		dst = append(dst, 2) // union branch 1, zigzag encoded
	}
	switch op.kind {
	case kF64:
		x, ok := v.(float64)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendDouble(dst, x)
	case kF32:
		x, ok := v.(float32)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendFloat(dst, x)
	case kI32:
		x, ok := v.(int32)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendLong(dst, int64(x))
	case kString:
		x, ok := v.(string)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendString(dst, x)
	case kF32s:
		x, ok := v.([]float32)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendFloats(dst, x)
	case kF64s:
		x, ok := v.([]float64)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendDoubles(dst, x)
	case kBool:
		x, ok := v.(bool)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendBool(dst, x)
	case kU8:
		x, ok := v.(uint8)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendLong(dst, int64(x))
	case kI16:
		x, ok := v.(int16)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendLong(dst, int64(x))
	case kI64:
		x, ok := v.(int64)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendLong(dst, x)
	case kU16:
		x, ok := v.(uint16)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendLong(dst, int64(x))
	case kU32:
		x, ok := v.(uint32)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendLong(dst, int64(x))
	case kBools:
		x, ok := v.([]bool)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendBools(dst, x)
	case kU8s:
		x, ok := v.([]uint8)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendBytes(dst, x)
	case kI16s:
		x, ok := v.([]int16)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendShorts(dst, x)
	case kI32s:
		x, ok := v.([]int32)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendInts(dst, x)
	case kI64s:
		x, ok := v.([]int64)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendLongs(dst, x)
	case kU16s:
		x, ok := v.([]uint16)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendUShorts(dst, x)
	case kU32s:
		x, ok := v.([]uint32)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = wire.AppendUInts(dst, x)
	case kStrings:
		x, ok := v.([]string)
		if !ok {
			return dst, c.typeError(op, v)
		}
		dst = appendStrings(dst, x)
	}
	return dst, nil
}

func (c *Codec) fieldError(op *encOp, got string) error {
	want := op.kind.String()
	if op.nullable {
		want += " or nil"
	}
	return &FieldError{Topic: c.topic, Field: op.name, Want: want, Got: got}
}

func (c *Codec) typeError(op *encOp, v any) error {
	if v == nil {
		return c.fieldError(op, "nil")
	}
	return c.fieldError(op, fmt.Sprintf("%T", v))
}

// Decode decodes an Avro body written with the topic's own schema into a
// fresh map with fresh slices and canonical Go types. See DecodeInto for
// the errors and DecodeIssues for the issues.
func (c *Codec) Decode(src []byte) (map[string]any, error) { return c.dec.Decode(src) }

// DecodeInto decodes like Decode into rec, reusing it; see
// (*Decoder).DecodeInto.
func (c *Codec) DecodeInto(src []byte, rec map[string]any) error { return c.dec.DecodeInto(src, rec) }

// DecodeIssues decodes like DecodeInto and also returns the issues of this
// record; see (*Decoder).DecodeIssues.
func (c *Codec) DecodeIssues(src []byte, rec map[string]any) (Issues, error) {
	return c.dec.DecodeIssues(src, rec)
}

// Stats returns the issues counted by every decode of this codec so far.
func (c *Codec) Stats() Issues { return c.dec.Stats() }

// Decoder returns the codec's decoder for the topic's own schema.
func (c *Codec) Decoder() *Decoder { return c.dec }
