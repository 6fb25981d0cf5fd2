package wire_test

import (
	"fmt"
	"math"
	"sync"
	"testing"
	"unsafe"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/topics/wire"
	"github.com/lsst-sal/salgo/xml"
)

// exampleTopic returns the embedded Example component's topic salName
// and its map codec.
func exampleTopic(tb testing.TB, salName string) (*xml.Topic, *codec.Codec) {
	tb.Helper()
	comp, err := example()
	if err != nil {
		tb.Fatal(err)
	}
	top := comp.Topic(salName)
	if top == nil {
		tb.Fatalf("no topic Example.%s", salName)
	}
	c, err := codec.New(top)
	if err != nil {
		tb.Fatal(err)
	}
	return top, c
}

// example is the embedded Example component, parsed once.
var example = sync.OnceValues(func() (*xml.Component, error) {
	return xml.Embedded().Component("Example")
})

// appendRecord encodes the canonical map record rec field by field with
// package wire, as generated code does.
func appendRecord(tb testing.TB, dst []byte, t *xml.Topic, rec map[string]any) []byte {
	tb.Helper()
	for _, f := range t.Fields {
		v := rec[f.Name]
		if f.Nullable {
			dst = wire.AppendUnion(dst, v == nil)
			if v == nil {
				continue
			}
		}
		switch x := v.(type) {
		case bool:
			dst = wire.AppendBool(dst, x)
		case uint8:
			dst = wire.AppendInt(dst, int32(x))
		case int16:
			dst = wire.AppendInt(dst, int32(x))
		case int32:
			dst = wire.AppendInt(dst, x)
		case uint16:
			dst = wire.AppendInt(dst, int32(x))
		case int64:
			dst = wire.AppendLong(dst, x)
		case uint32:
			dst = wire.AppendLong(dst, int64(x))
		case float32:
			dst = wire.AppendFloat(dst, x)
		case float64:
			dst = wire.AppendDouble(dst, x)
		case string:
			dst = wire.AppendString(dst, x)
		case []bool:
			dst = wire.AppendBools(dst, x)
		case []uint8:
			dst = wire.AppendBytes(dst, x)
		case []int16:
			dst = wire.AppendShorts(dst, x)
		case []int32:
			dst = wire.AppendInts(dst, x)
		case []uint16:
			dst = wire.AppendUShorts(dst, x)
		case []int64:
			dst = wire.AppendLongs(dst, x)
		case []uint32:
			dst = wire.AppendUInts(dst, x)
		case []float32:
			dst = wire.AppendFloats(dst, x)
		case []float64:
			dst = wire.AppendDoubles(dst, x)
		default:
			tb.Fatalf("%s: field %s: value %T", t, f.Name, v)
		}
	}
	return dst
}

// decodeRecord decodes src field by field with d into rec, as generated
// code does into a struct: arrays into rec's slices of Count items
// (allocated when missing), strings reusing rec's old value.
func decodeRecord(d *wire.Decoder, t *xml.Topic, src []byte, rec map[string]any) (int, error) {
	d.Reset(t.String(), src)
	for _, f := range t.Fields {
		n := f.Name
		if f.Nullable && d.Union(n) {
			rec[n] = nil
			continue
		}
		if f.Count > 1 && f.Type != xml.String {
			switch f.Type {
			case xml.Boolean:
				d.Bools(n, slot[bool](rec, f))
			case xml.Byte:
				d.Bytes(n, slot[uint8](rec, f))
			case xml.Short:
				d.Shorts(n, slot[int16](rec, f))
			case xml.Int, xml.Long:
				d.Ints(n, slot[int32](rec, f))
			case xml.LongLong:
				d.Longs(n, slot[int64](rec, f))
			case xml.UnsignedShort:
				d.UShorts(n, slot[uint16](rec, f))
			case xml.UnsignedInt:
				d.UInts(n, slot[uint32](rec, f))
			case xml.Float:
				d.Floats(n, slot[float32](rec, f))
			case xml.Double:
				d.Doubles(n, slot[float64](rec, f))
			default:
				panic(fmt.Sprintf("%s: field %s: type %v", t, n, f.Type))
			}
			continue
		}
		switch f.Type {
		case xml.Boolean:
			rec[n] = d.Bool(n)
		case xml.Byte:
			rec[n] = d.Byte(n)
		case xml.Short:
			rec[n] = d.Short(n)
		case xml.Int, xml.Long:
			rec[n] = d.Int(n)
		case xml.LongLong:
			rec[n] = d.Long(n)
		case xml.UnsignedShort:
			rec[n] = d.UShort(n)
		case xml.UnsignedInt:
			rec[n] = d.UInt(n)
		case xml.Float:
			rec[n] = d.Float(n)
		case xml.Double:
			rec[n] = d.Double(n)
		case xml.String:
			old, _ := rec[n].(string)
			rec[n] = d.String(n, old, f.MaxLen())
		default:
			panic(fmt.Sprintf("%s: field %s: type %v", t, n, f.Type))
		}
	}
	return d.Finish()
}

func slot[T any](rec map[string]any, f *xml.Field) []T {
	s, ok := rec[f.Name].([]T)
	if !ok || len(s) != f.Count {
		s = make([]T, f.Count)
		rec[f.Name] = s
	}
	return s
}

// sameValue reports whether a and b are equal values of the same type,
// floats compared by their bits.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case float32:
		y, ok := b.(float32)
		return ok && math.Float32bits(x) == math.Float32bits(y)
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case []float32:
		y, ok := b.([]float32)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
				return false
			}
		}
		return true
	case []float64:
		y, ok := b.([]float64)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return false
			}
		}
		return true
	}
	return fmt.Sprint(a) == fmt.Sprint(b) && fmt.Sprintf("%T", a) == fmt.Sprintf("%T", b)
}

func appendFloat32(v float32) []byte   { return wire.AppendFloat(nil, v) }
func appendFloat64(v float64) []byte   { return wire.AppendDouble(nil, v) }
func appendFloats32(v float32) []byte  { return wire.AppendFloats(nil, []float32{v}) }
func appendDoubles64(v float64) []byte { return wire.AppendDoubles(nil, []float64{v}) }

// unsafeSame reports whether a and b share their bytes.
func unsafeSame(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
