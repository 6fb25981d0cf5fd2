package codec_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/internal/wirefixture"
	"github.com/lsst-sal/salgo/xml"
)

// The oracle tests of this file hold the codec to what the real ts_salobj
// 8.2.12 (fastavro) wrote in a TestCsc session: the salobj8-wire fixture
// (see internal/wirefixture), read with the Test component of the ts_xml
// named by TS_XML_DIR.

// fixtureTest returns ts_xml's Test component, or skips.
func fixtureTest(t *testing.T) *xml.Component {
	t.Helper()
	defs, err := xml.Open(wirefixture.XMLDir(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := defs.Component(wirefixture.Component)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fixtureTopic returns the topic of record r, failing t if Test lacks it.
func fixtureTopic(t *testing.T, comp *xml.Component, r *wirefixture.Record) *xml.Topic {
	t.Helper()
	tp := comp.Topic(r.SALName())
	if tp == nil {
		t.Fatalf("records.jsonl line %d: ts_xml's Test has no topic %s", r.Line, r.SALName())
	}
	return tp
}

// nanKind selects the NaN that the fixture's "NaN" text becomes.
type nanKind int

const (
	// pythonNaN is Python's float("nan"), the canonical quiet NaN
	// 0x7ff8000000000000, what fastavro decoded from the wire.
	pythonNaN nanKind = iota
	// goNaN is math.NaN() (0x7ff8000000000001), what Go code writes.
	goNaN
)

// fixtureRecord converts the fixture's decoded JSON of r into a record of
// canonical Go values for topic tp (see the package doc's type table).
// It fails t when a field is missing, out of order, or does not fit its
// type. specials counts the NaN, infinity and -0.0 values met.
func fixtureRecord(t *testing.T, tp *xml.Topic, r *wirefixture.Record, nan nanKind, specials *int) map[string]any {
	t.Helper()
	if len(r.Decoded) != len(tp.Fields) {
		t.Fatalf("line %d (%s): %d decoded fields, the topic has %d", r.Line, tp, len(r.Decoded), len(tp.Fields))
	}
	rec := make(map[string]any, len(tp.Fields))
	for i, f := range tp.Fields {
		d := r.Decoded[i]
		if d.Name != f.Name {
			t.Fatalf("line %d (%s): decoded field %d is %s, the schema's is %s", r.Line, tp, i, d.Name, f.Name)
		}
		var v any
		var err error
		if f.Count > 1 {
			items, ok := d.Value.([]any)
			if !ok {
				t.Fatalf("line %d (%s): field %s is %v, not an array", r.Line, tp, f.Name, d.Value)
			}
			v, err = fixtureArray(f.Type, items, nan, specials)
		} else {
			v, err = fixtureScalar(f.Type, d.Value, nan, specials)
		}
		if err != nil {
			t.Fatalf("line %d (%s): field %s: %v", r.Line, tp, f.Name, err)
		}
		rec[f.Name] = v
	}
	return rec
}

func fixtureArray(typ xml.Type, items []any, nan nanKind, specials *int) (any, error) {
	conv := func(x any) (any, error) { return fixtureScalar(typ, x, nan, specials) }
	switch typ {
	case xml.Boolean:
		return convSlice[bool](items, conv)
	case xml.Byte:
		return convSlice[uint8](items, conv)
	case xml.Short:
		return convSlice[int16](items, conv)
	case xml.Int, xml.Long:
		return convSlice[int32](items, conv)
	case xml.LongLong:
		return convSlice[int64](items, conv)
	case xml.UnsignedShort:
		return convSlice[uint16](items, conv)
	case xml.UnsignedInt:
		return convSlice[uint32](items, conv)
	case xml.Float:
		return convSlice[float32](items, conv)
	case xml.Double:
		return convSlice[float64](items, conv)
	case xml.String:
		return convSlice[string](items, conv)
	}
	return nil, fmt.Errorf("unknown type %v", typ)
}

func convSlice[T any](items []any, conv func(any) (any, error)) ([]T, error) {
	out := make([]T, len(items))
	for i, x := range items {
		v, err := conv(x)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		out[i] = v.(T)
	}
	return out, nil
}

// fixtureScalar converts one JSON value (json.Number, string or bool).
func fixtureScalar(typ xml.Type, x any, nan nanKind, specials *int) (any, error) {
	switch typ {
	case xml.Boolean:
		b, ok := x.(bool)
		if !ok {
			return nil, fmt.Errorf("%v is not a boolean", x)
		}
		return b, nil
	case xml.String:
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("%v is not a string", x)
		}
		return s, nil
	case xml.Float:
		f, err := fixtureFloat(x, nan, specials)
		if err != nil {
			return nil, err
		}
		f32 := float32(f)
		if float64(f32) != f && !math.IsNaN(f) {
			return nil, fmt.Errorf("%v is not a float32 widened exactly", x)
		}
		return f32, nil
	case xml.Double:
		return fixtureFloat(x, nan, specials)
	}
	n, ok := x.(json.Number)
	if !ok {
		return nil, fmt.Errorf("%v is not a number", x)
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%v is not an integer: %w", x, err)
	}
	var v any
	var back int64
	switch typ {
	case xml.Byte:
		v, back = uint8(i), int64(uint8(i))
	case xml.Short:
		v, back = int16(i), int64(int16(i))
	case xml.Int, xml.Long:
		v, back = int32(i), int64(int32(i))
	case xml.LongLong:
		v, back = i, i
	case xml.UnsignedShort:
		v, back = uint16(i), int64(uint16(i))
	case xml.UnsignedInt:
		v, back = uint32(i), int64(uint32(i))
	default:
		return nil, fmt.Errorf("unknown type %v", typ)
	}
	if back != i {
		return nil, fmt.Errorf("%d does not fit a SAL %v", i, typ)
	}
	return v, nil
}

// fixtureFloat parses a JSON float: a number, or one of the texts the
// fixture uses for NaN, the infinities and -0.0.
func fixtureFloat(x any, nan nanKind, specials *int) (float64, error) {
	if s, ok := x.(string); ok {
		*specials++
		switch s {
		case "NaN":
			if nan == goNaN {
				return math.NaN(), nil
			}
			return math.Float64frombits(0x7ff8000000000000), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		case "-0.0":
			return math.Copysign(0, -1), nil
		}
		return 0, fmt.Errorf("%q is not a float", s)
	}
	n, ok := x.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%v is not a number", x)
	}
	return strconv.ParseFloat(n.String(), 64)
}

// sameBits reports whether two canonical values are identical: same type,
// floats by bit pattern, slices item by item.
func sameBits(a, b any) bool {
	switch x := a.(type) {
	case float32:
		y, ok := b.(float32)
		return ok && math.Float32bits(x) == math.Float32bits(y)
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case []float32:
		y, ok := b.([]float32)
		return ok && len(x) == len(y) && bytes.Equal(f32Bytes(x), f32Bytes(y))
	case []float64:
		y, ok := b.([]float64)
		return ok && len(x) == len(y) && bytes.Equal(f64Bytes(x), f64Bytes(y))
	}
	return fmt.Sprintf("%T %#v", a, a) == fmt.Sprintf("%T %#v", b, b)
}

func f32Bytes(xs []float32) []byte {
	var b []byte
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func f64Bytes(xs []float64) []byte {
	var b []byte
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// checkSame fails t for every field of got that differs from want, and
// for keys got has beyond want.
func checkSame(t *testing.T, what string, tp *xml.Topic, got, want map[string]any) {
	t.Helper()
	for _, f := range tp.Fields {
		if !sameBits(got[f.Name], want[f.Name]) {
			t.Errorf("%s: %s: got %T %#v, want %T %#v", what, f.Name, got[f.Name], got[f.Name], want[f.Name], want[f.Name])
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d keys, want %d", what, len(got), len(want))
	}
}

// TestSalobj8_Decode decodes every record salobj wrote, with the topic's
// own codec and with a resolving decoder built from the writer schema the
// registry holds under the record's schema id, and compares each field
// with fastavro's decoding: integers exactly, floats by bit pattern
// (float32 fields widened exactly), NaN as Python's canonical quiet NaN.
func TestSalobj8_Decode(t *testing.T) {
	comp := fixtureTest(t)
	writers := wirefixture.SchemaByID(t)
	resolving := map[int32]*codec.Decoder{}
	specials := 0
	for _, r := range wirefixture.Records(t) {
		tp := fixtureTopic(t, comp, &r)
		want := fixtureRecord(t, tp, &r, pythonNaN, &specials)
		c, err := codec.New(tp)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Decode(r.Body())
		if err != nil {
			t.Errorf("line %d (%s): Decode: %v", r.Line, tp, err)
			continue
		}
		checkSame(t, fmt.Sprintf("line %d (%s) Decode", r.Line, tp), tp, got, want)

		d := resolving[r.SchemaID]
		if d == nil {
			text, ok := writers[r.SchemaID]
			if !ok {
				t.Fatalf("line %d: schema id %d is not in schemas.jsonl", r.Line, r.SchemaID)
			}
			if d, err = codec.NewResolving(text, tp); err != nil {
				t.Fatalf("line %d (%s): NewResolving(schema %d): %v", r.Line, tp, r.SchemaID, err)
			}
			resolving[r.SchemaID] = d
		}
		got, err = d.Decode(r.Body())
		if err != nil {
			t.Errorf("line %d (%s): resolving Decode: %v", r.Line, tp, err)
			continue
		}
		checkSame(t, fmt.Sprintf("line %d (%s) resolving Decode", r.Line, tp), tp, got, want)
	}
	// NaN, the infinities and -0.0 in float0 and double0 of setScalars 2-4
	// (2 each) and setArrays 2 (4 each; the denormals are numbers), each in
	// the command, the event and the telemetry.
	if specials != 3*(3*2+2*4) {
		t.Errorf("%d NaN/Infinity/-0.0 values in the fixture, want 42: the special floats were not all checked", specials)
	}
}

// TestSalobj8_Encode re-encodes every record and compares the bytes with
// those salobj wrote: the record the codec decoded, and the record built
// from fastavro's decoding with Go's math.NaN() for NaN, as a Go program
// would write it (the encoder writes every NaN as Python's canonical
// pattern). The Confluent header before the body is the schema id's.
func TestSalobj8_Encode(t *testing.T) {
	comp := fixtureTest(t)
	specials := 0
	for _, r := range wirefixture.Records(t) {
		tp := fixtureTopic(t, comp, &r)
		c, err := codec.New(tp)
		if err != nil {
			t.Fatal(err)
		}
		decoded, err := c.Decode(r.Body())
		if err != nil {
			t.Fatalf("line %d (%s): %v", r.Line, tp, err)
		}
		for _, tc := range []struct {
			what string
			rec  map[string]any
		}{
			{"decoded record", decoded},
			{"fixture record with math.NaN()", fixtureRecord(t, tp, &r, goNaN, &specials)},
		} {
			got, err := c.Append(codec.AppendHeader(nil, r.SchemaID), tc.rec)
			if err != nil {
				t.Errorf("line %d (%s): %s: %v", r.Line, tp, tc.what, err)
				continue
			}
			if !bytes.Equal(got, r.Value) {
				t.Errorf("line %d (%s): %s encodes as\n%x\nsalobj wrote\n%x\n%s", r.Line, tp, tc.what, got, r.Value, firstDiff(got, r.Value))
			}
		}
	}
}

// firstDiff describes where two byte strings first differ.
func firstDiff(a, b []byte) string {
	for i := 0; i < min(len(a), len(b)); i++ {
		if a[i] != b[i] {
			return fmt.Sprintf("first difference at byte %d: %02x, want %02x", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(a), len(b))
}

// TestSalobj8_Framing checks the Confluent framing of every value salobj
// wrote: the magic byte 0 and the schema id as a big-endian uint32, which
// SplitHeader reads and AppendHeader writes.
func TestSalobj8_Framing(t *testing.T) {
	for _, r := range wirefixture.Records(t) {
		if r.Value[0] != codec.Magic {
			t.Errorf("line %d: first byte %02x, want the magic byte", r.Line, r.Value[0])
		}
		if got := binary.BigEndian.Uint32(r.Value[1:5]); got != uint32(r.SchemaID) {
			t.Errorf("line %d: bytes 1-4 hold %d, schema_id is %d", r.Line, got, r.SchemaID)
		}
		id, body, err := codec.SplitHeader(r.Value)
		if err != nil || id != r.SchemaID || !bytes.Equal(body, r.Body()) {
			t.Errorf("line %d: SplitHeader: id %d, %d body bytes, %v; want id %d, %d bytes", r.Line, id, len(body), err, r.SchemaID, len(r.Body()))
		}
		if h := codec.AppendHeader(nil, r.SchemaID); !bytes.Equal(h, r.Value[:codec.HeaderLen]) {
			t.Errorf("line %d: AppendHeader(%d) = %x, salobj wrote %x", r.Line, r.SchemaID, h, r.Value[:codec.HeaderLen])
		}
	}
}
