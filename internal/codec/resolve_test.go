package codec_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/xml"
)

func mustResolve(tb testing.TB, writer string, reader *xml.Topic) *codec.Decoder {
	tb.Helper()
	d, err := codec.NewResolving(writer, reader)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// writeWith encodes rec with hamba's generic encoder for schema.
func writeWith(tb testing.TB, schema string, rec map[string]any) []byte {
	tb.Helper()
	g, err := codec.NewGeneric(schema)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := g.Marshal(rec)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestResolve_SameSchema(t *testing.T) {
	for _, top := range []*xml.Topic{allTypes(), forceActuatorData()} {
		c := mustNew(t, top)
		d := mustResolve(t, schemaText(top), top)
		r := rand.New(rand.NewPCG(20, 21))
		for range 50 {
			rec := randomRecord(r, top)
			b, _ := c.Append(nil, rec)
			got, err := d.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, rec) {
				t.Fatalf("%s: got %#v", top.SALName, got)
			}
		}
	}
}

func TestResolve_FieldAdded(t *testing.T) {
	old := topic("T", "evt", field("a", xml.Int, 1))
	reader := topic("T", "evt", field("a", xml.Int, 1), field("f", xml.Float, 1), field("arr", xml.Double, 3),
		field("s", xml.String, 1), field("bl", xml.Boolean, 1), field("us", xml.UnsignedShort, 2), nullable("n", xml.Double, 1))
	d := mustResolve(t, schemaText(old), reader)
	b := writeWith(t, schemaText(old), map[string]any{"a": int32(7)})
	want := map[string]any{"a": int32(7), "f": float32(0), "arr": []float64{0, 0, 0}, "s": "", "bl": false,
		"us": []uint16{0, 0}, "n": nil}
	got, err := d.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
	// DecodeInto clears a reused default array.
	rec := map[string]any{"arr": []float64{1, 2, 3}}
	arr := rec["arr"].([]float64)
	if err := d.DecodeInto(b, rec); err != nil || !reflect.DeepEqual(rec, want) || arr[0] != 0 {
		t.Fatalf("DecodeInto: %v %#v", err, rec)
	}
	// A missing field without a default cannot be resolved.
	nd := field("nd", xml.Int, 1)
	nd.NoDefault = true
	if _, err := codec.NewResolving(schemaText(old), topic("T", "evt", field("a", xml.Int, 1), nd)); !errors.Is(err, codec.ErrIncompatible) {
		t.Fatalf("no default: %v", err)
	}
}

func TestResolve_FieldRemoved(t *testing.T) {
	writer := topic("T", "evt", field("x", xml.Double, 5), field("a", xml.Int, 1), field("s", xml.String, 1),
		nullable("n", xml.LongLong, 1), field("b", xml.Boolean, 1))
	reader := topic("T", "evt", field("b", xml.Boolean, 1), field("a", xml.Int, 1))
	d := mustResolve(t, schemaText(writer), reader)
	b := writeWith(t, schemaText(writer), map[string]any{"x": []float64{1, 2, 3, 4, 5}, "a": int32(-3),
		"s": "skip me", "n": int64(9), "b": true})
	got, err := d.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if want := (map[string]any{"a": int32(-3), "b": true}); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
}

func TestResolve_Promotions(t *testing.T) {
	writer := `{"type": "record", "name": "p", "fields": [
		{"name": "il", "type": "int"}, {"name": "if", "type": "int"}, {"name": "id", "type": "int"},
		{"name": "lf", "type": "long"}, {"name": "ld", "type": "long"}, {"name": "fd", "type": "float"},
		{"name": "bs", "type": "bytes"}, {"name": "iu", "type": "int"},
		{"name": "al", "type": {"type": "array", "items": "int"}},
		{"name": "af", "type": {"type": "array", "items": "float"}},
		{"name": "n", "type": "int"}]}`
	reader := topic("T", "p", field("il", xml.LongLong, 1), field("if", xml.Float, 1), field("id", xml.Double, 1),
		field("lf", xml.Float, 1), field("ld", xml.Double, 1), field("fd", xml.Double, 1),
		field("bs", xml.String, 1), field("iu", xml.UnsignedInt, 1),
		field("al", xml.LongLong, 2), field("af", xml.Double, 2), nullable("n", xml.LongLong, 1))
	d := mustResolve(t, writer, reader)
	b := writeWith(t, writer, map[string]any{"il": int32(-5), "if": int32(16777217), "id": int32(math.MinInt32),
		"lf": int64(1 << 40), "ld": int64(-(1 << 53)), "fd": float32(0.1), "bs": []byte("héllo"), "iu": int32(-1),
		"al": []int32{1, -2}, "af": []float32{0.5, 1.5}, "n": int32(4)})
	got, err := d.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"il": int64(-5), "if": float32(16777217), "id": float64(math.MinInt32),
		"lf": float32(1 << 40), "ld": float64(-(1 << 53)), "fd": float64(float32(0.1)), "bs": "héllo",
		"iu": uint32(math.MaxUint32), "al": []int64{1, -2}, "af": []float64{0.5, 1.5}, "n": int64(4)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
	if s := d.Stats(); s.OutOfRange != 1 {
		t.Errorf("stats %+v", s)
	}
	// And string to bytes the other way: a reader string from writer string is plain.
	for _, bad := range []struct{ w, r string }{
		{`"long"`, "int"}, {`"double"`, "float"}, {`"string"`, "int"}, {`"int"`, "boolean"},
		{`{"type": "array", "items": "int"}`, "int"}, {`"int"`, "array"}, {`{"type": "enum", "name": "E", "symbols": ["A"]}`, "int"},
		{`"null"`, "int"}, {`["null", "string"]`, "int"},
	} {
		w := `{"type": "record", "name": "p", "fields": [{"name": "x", "type": ` + bad.w + `}]}`
		var f *xml.Field
		switch bad.r {
		case "int":
			f = field("x", xml.Int, 1)
		case "float":
			f = field("x", xml.Float, 1)
		case "boolean":
			f = field("x", xml.Boolean, 1)
		case "array":
			f = field("x", xml.Int, 3)
		}
		_, err := codec.NewResolving(w, topic("T", "p", f))
		if !errors.Is(err, codec.ErrIncompatible) {
			t.Errorf("%s as %s: %v", bad.w, bad.r, err)
		} else if !strings.Contains(err.Error(), "field x") {
			t.Errorf("error does not name the field: %v", err)
		}
	}
}

// TestResolve_SkipComplex skips writer fields of every complex type,
// including a recursive record, written by hamba.
func TestResolve_SkipComplex(t *testing.T) {
	writer := `{"type": "record", "name": "w", "namespace": "lsst.sal.kafka_T", "fields": [
		{"name": "rec", "type": {"type": "record", "name": "Inner", "fields": [
			{"name": "x", "type": "double"}, {"name": "s", "type": "string"},
			{"name": "deep", "type": {"type": "record", "name": "Deep", "fields": [{"name": "z", "type": "float"}]}}]}},
		{"name": "a", "type": "int"},
		{"name": "en", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN", "BLUE"]}},
		{"name": "fx", "type": {"type": "fixed", "name": "F16", "size": 16}},
		{"name": "by", "type": "bytes"},
		{"name": "mp", "type": {"type": "map", "values": {"type": "array", "items": "long"}}},
		{"name": "ar", "type": {"type": "array", "items": "Inner"}},
		{"name": "un", "type": ["null", "string", "Inner", {"type": "map", "values": "int"}]},
		{"name": "list", "type": {"type": "record", "name": "Node", "fields": [
			{"name": "v", "type": "int"}, {"name": "next", "type": ["null", "Node"]}]}},
		{"name": "nulls", "type": {"type": "array", "items": "null"}},
		{"name": "b", "type": "string"}]}`
	reader := topic("T", "w", field("a", xml.Int, 1), field("b", xml.String, 1))
	d := mustResolve(t, writer, reader)
	inner := map[string]any{"x": 1.5, "s": "inner", "deep": map[string]any{"z": float32(2)}}
	var fx [16]byte
	for i := range fx {
		fx[i] = byte(i)
	}
	list := map[string]any{"v": int32(1), "next": map[string]any{"lsst.sal.kafka_T.Node": map[string]any{"v": int32(2),
		"next": map[string]any{"lsst.sal.kafka_T.Node": map[string]any{"v": int32(3), "next": nil}}}}}
	for i, un := range []any{nil, map[string]any{"string": "u"}, map[string]any{"lsst.sal.kafka_T.Inner": inner},
		map[string]any{"map": map[string]any{"k": int32(1), "l": int32(2)}}} {
		rec := map[string]any{"rec": inner, "a": int32(42 + i), "en": "BLUE", "fx": fx, "by": []byte{1, 2, 3},
			"mp": map[string]any{"one": []int64{1}, "two": []int64{2, 3}}, "ar": []any{inner, inner},
			"un": un, "list": list, "nulls": []any{nil, nil, nil}, "b": "end"}
		b := writeWith(t, writer, rec)
		got, err := d.Decode(b)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if want := (map[string]any{"a": int32(42 + i), "b": "end"}); !reflect.DeepEqual(got, want) {
			t.Fatalf("%d: got %#v", i, got)
		}
	}
}

func TestResolve_Unions(t *testing.T) {
	writer := `{"type": "record", "name": "u", "fields": [
		{"name": "d", "type": ["null", "double"]},
		{"name": "n", "type": "float"},
		{"name": "m", "type": ["null", "int", "string"]},
		{"name": "arr", "type": {"type": "array", "items": ["null", "int"]}},
		{"name": "na", "type": ["null", {"type": "array", "items": "float"}]}]}`
	reader := topic("T", "u", field("d", xml.Double, 1), nullable("n", xml.Double, 1), field("m", xml.LongLong, 1),
		field("arr", xml.Short, 3), field("na", xml.Float, 2))
	d := mustResolve(t, writer, reader)

	b := writeWith(t, writer, map[string]any{"d": nil, "n": float32(2), "m": nil, "arr": []any{int32(1), nil, int32(3)}, "na": nil})
	rec := map[string]any{}
	iss, err := d.DecodeIssues(b, rec)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"d": 0.0, "n": 2.0, "m": int64(0), "arr": []int16{1, 0, 3}, "na": []float32{0, 0}}
	if !reflect.DeepEqual(rec, want) {
		t.Fatalf("got %#v", rec)
	}
	if iss.NullDefaults != 4 || iss.Field != "d" {
		t.Fatalf("issues %+v", iss)
	}

	g, _ := codec.NewGeneric(writer)
	b, err = g.Marshal(map[string]any{"d": 1.5, "n": float32(2), "m": int32(-4), "arr": []int32{}, "na": []float32{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	iss, err = d.DecodeIssues(b, rec)
	want = map[string]any{"d": 1.5, "n": 2.0, "m": int64(-4), "arr": []int16{}, "na": []float32{1, 2}}
	if err != nil || !iss.Zero() || !reflect.DeepEqual(rec, want) {
		t.Fatalf("%v %+v %#v", err, iss, rec)
	}

	// The string branch of m cannot be read as a long long: only records
	// using it fail.
	b, err = g.Marshal(map[string]any{"d": 1.5, "n": float32(2), "m": "text", "arr": []int32{}, "na": nil})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Decode(b); !errors.Is(err, codec.ErrInvalid) || !strings.Contains(err.Error(), "field m") {
		t.Fatalf("string branch: %v", err)
	}
}

func TestResolve_BadWriterSchema(t *testing.T) {
	reader := topic("T", "x", field("a", xml.Int, 1))
	for _, w := range []string{`{`, `"int"`, `{"type": "record", "name": "bad-name", "fields": []}`} {
		if _, err := codec.NewResolving(w, reader); err == nil {
			t.Errorf("%s: no error", w)
		}
	}
	if _, err := codec.NewResolving(schemaText(reader), nil); err == nil {
		t.Error("nil reader: no error")
	}
}
