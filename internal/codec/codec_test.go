package codec_test

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/xml"
)

func mustNew(tb testing.TB, t *xml.Topic) *codec.Codec {
	tb.Helper()
	c, err := codec.New(t)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func mustGeneric(tb testing.TB, t *xml.Topic) *codec.Generic {
	tb.Helper()
	g, err := codec.NewGeneric(schemaText(t))
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// crossCheck encodes rec with Codec and Generic, compares the bytes, and
// decodes with both, comparing the values with rec.
func crossCheck(t *testing.T, top *xml.Topic, c *codec.Codec, g *codec.Generic, rec map[string]any) {
	t.Helper()
	ours, err := c.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := g.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours, theirs) {
		t.Fatalf("Append and hamba differ:\nours   %x\nhamba  %x", ours, theirs)
	}
	got, err := c.Decode(ours)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rec) {
		t.Fatalf("round trip:\ngot  %#v\nwant %#v", got, rec)
	}
	hm, err := g.Unmarshal(ours)
	if err != nil {
		t.Fatal(err)
	}
	if h := fromHamba(t, top, hm); !reflect.DeepEqual(h, got) {
		t.Fatalf("hamba decode differs:\nhamba %#v\nours  %#v", h, got)
	}
	if iss, err := c.DecodeIssues(ours, map[string]any{}); err != nil || !iss.Zero() {
		t.Fatalf("DecodeIssues: %v %+v", err, iss)
	}
}

func TestRoundTrip_AllTypes(t *testing.T) {
	top := allTypes()
	c, g := mustNew(t, top), mustGeneric(t, top)
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		crossCheck(t, top, c, g, randomRecord(r, top))
	}
}

func TestRoundTrip_ZeroAndEmpty(t *testing.T) {
	top := allTypes()
	c, g := mustNew(t, top), mustGeneric(t, top)
	rec := map[string]any{}
	for _, f := range top.Fields {
		switch {
		case f.Nullable:
			rec[f.Name] = nil
		case f.Count > 1:
			// Empty arrays: a single 0 byte.
			rec[f.Name] = reflect.MakeSlice(reflect.TypeOf(randomArray(rand.New(rand.NewPCG(0, 0)), f.Type, 1)), 0, 0).Interface()
		default:
			rec[f.Name] = reflect.Zero(reflect.TypeOf(randomScalar(rand.New(rand.NewPCG(0, 0)), f.Type))).Interface()
		}
	}
	crossCheck(t, top, c, g, rec)
}

func TestRoundTrip_ForceActuatorData(t *testing.T) {
	top := forceActuatorData()
	c, g := mustNew(t, top), mustGeneric(t, top)
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		rec := randomRecord(r, top)
		crossCheck(t, top, c, g, rec)
	}
	b, _ := c.Append(nil, randomRecord(r, top))
	if c.SizeHint() < len(b) {
		t.Errorf("SizeHint %d < body %d", c.SizeHint(), len(b))
	}
}

func TestRoundTrip_BigDoubles(t *testing.T) {
	top := bigDoubles()
	c, g := mustNew(t, top), mustGeneric(t, top)
	r := rand.New(rand.NewPCG(5, 6))
	crossCheck(t, top, c, g, randomRecord(r, top))
}

// TestAppend_KnownBytes checks the encoding against bytes written by hand.
func TestAppend_KnownBytes(t *testing.T) {
	top := topic("Test", "known",
		field("b", xml.Boolean, 1),
		field("i", xml.Int, 1),
		field("ll", xml.LongLong, 1),
		field("ui", xml.UnsignedInt, 1),
		field("f", xml.Float, 1),
		field("d", xml.Double, 1),
		field("s", xml.String, 1),
		field("a", xml.Short, 2),
		field("e", xml.Float, 2),
		nullable("n", xml.Int, 1),
		nullable("m", xml.Int, 1),
	)
	c := mustNew(t, top)
	rec := map[string]any{"b": true, "i": int32(-2), "ll": int64(64), "ui": uint32(1<<32 - 1),
		"f": float32(1), "d": float64(-2), "s": "hé", "a": []int16{1, -1}, "e": []float32{},
		"n": nil, "m": int32(3)}
	got, err := c.Append([]byte{0xAA}, rec)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0xAA,
		1,          // true
		3,          // zigzag(-2)
		0x80, 0x01, // zigzag(64) = 128
		0xfe, 0xff, 0xff, 0xff, 0x1f, // zigzag(2^32-1)
		0, 0, 0x80, 0x3f, // 1.0f
		0, 0, 0, 0, 0, 0, 0, 0xc0, // -2.0
		6, 'h', 0xc3, 0xa9, // "hé"
		4, 2, 1, 0, // [1, -1]: count 2, items, end
		0,    // empty array
		0,    // null branch
		2, 6, // branch 1, 3
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("got  %x\nwant %x", got, want)
	}
}

func TestAppend_Errors(t *testing.T) {
	top := allTypes()
	c := mustNew(t, top)
	r := rand.New(rand.NewPCG(7, 8))
	good := randomRecord(r, top)
	cases := []struct {
		field string
		value any
		del   bool
		got   string
	}{
		{field: "s_float", value: float64(1), got: "float64"},
		{field: "a_float", value: []float64{1, 2, 3}, got: "[]float64"},
		{field: "s_int", value: 1, got: "int"},
		{field: "s_long_long", value: int32(1), got: "int32"},
		{field: "s_byte", value: nil, got: "nil"},
		{field: "n_double", value: float32(1), got: "float32"},
		{field: "s_string", del: true, got: "missing"},
		{field: "n_string", del: true, got: "missing"},
	}
	for _, tc := range cases {
		rec := make(map[string]any, len(good))
		for k, v := range good {
			rec[k] = v
		}
		if tc.del {
			delete(rec, tc.field)
		} else {
			rec[tc.field] = tc.value
		}
		dst := []byte{1, 2, 3}
		out, err := c.Append(dst, rec)
		var fe *codec.FieldError
		if !errors.As(err, &fe) {
			t.Fatalf("%s: error %v is not a *FieldError", tc.field, err)
		}
		if fe.Topic != "Test.allTypes" || fe.Field != tc.field || fe.Got != tc.got {
			t.Errorf("%s: got %+v", tc.field, fe)
		}
		if !bytes.Equal(out, dst) {
			t.Errorf("%s: dst changed to %x", tc.field, out)
		}
	}
}

func TestNew_Errors(t *testing.T) {
	for _, top := range []*xml.Topic{
		topic("T", "dup", field("a", xml.Int, 1), field("a", xml.Int, 1)),
		topic("T", "noname", field("", xml.Int, 1)),
		topic("T", "badtype", field("a", xml.Type(99), 1)),
		topic("T", "nil", nil),
	} {
		if _, err := codec.New(top); err == nil {
			t.Errorf("%s: no error", top.SALName)
		}
	}
	if _, err := codec.New(nil); err == nil {
		t.Error("nil topic: no error")
	}
}

func TestDecode_Truncated(t *testing.T) {
	for _, top := range []*xml.Topic{allTypes(), forceActuatorData()} {
		c := mustNew(t, top)
		r := rand.New(rand.NewPCG(9, 10))
		b, err := c.Append(nil, randomRecord(r, top))
		if err != nil {
			t.Fatal(err)
		}
		for n := range len(b) {
			_, err := c.Decode(b[:n])
			var de *codec.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("%s: %d of %d bytes: error %v", top.SALName, n, len(b), err)
			}
			if !errors.Is(err, codec.ErrTruncated) && !errors.Is(err, codec.ErrInvalid) {
				t.Fatalf("%d bytes: %v", n, err)
			}
		}
		_, err = c.Decode(append(b, 0))
		if !errors.Is(err, codec.ErrTrailing) {
			t.Fatalf("trailing byte: %v", err)
		}
	}
}

func TestDecode_Garbage(t *testing.T) {
	top := topic("T", "g", field("a", xml.Float, 100), field("s", xml.String, 1), field("b", xml.Boolean, 1), field("i", xml.Int, 1))
	c := mustNew(t, top)
	cases := map[string][]byte{
		"huge count":               {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		"count > remaining":        {0x14, 0, 0, 0, 0},
		"negative count, bad size": {0x01, 0x01},
		"min int64 count":          {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		"long varint":              {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
		"negative string len":      {0, 0x01},
		"huge string len":          {0, 0xfe, 0xff, 0xff, 0xff, 0x0f},
		"bad bool":                 {0, 0, 2, 0},
		"int over 32 bits":         {0, 0, 1, 0x80, 0x80, 0x80, 0x80, 0x20},
	}
	for name, b := range cases {
		allocs := testing.AllocsPerRun(10, func() { _, _ = c.Decode(b) })
		if _, err := c.Decode(b); err == nil {
			t.Errorf("%s: no error", name)
		} else if allocs > 10 {
			t.Errorf("%s: %v allocs", name, allocs)
		}
	}
}

func TestDecode_Blocks(t *testing.T) {
	top := topic("T", "blocks", field("a", xml.Float, 3), field("b", xml.Int, 3), field("c", xml.Double, 1))
	c := mustNew(t, top)
	f := func(x float32) []byte {
		return []byte{byte(math.Float32bits(x)), byte(math.Float32bits(x) >> 8), byte(math.Float32bits(x) >> 16), byte(math.Float32bits(x) >> 24)}
	}
	var b []byte
	// a: block of 2 with a negative count and byte size 8, then block of 1, then end.
	b = append(b, 3, 16)
	b = append(b, f(1)...)
	b = append(b, f(2)...)
	b = append(b, 2)
	b = append(b, f(3)...)
	b = append(b, 0)
	// b: three blocks of one item.
	b = append(b, 2, 2, 2, 4, 2, 6, 0)
	b = append(b, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f) // 1.0
	want := map[string]any{"a": []float32{1, 2, 3}, "b": []int32{1, 2, 3}, "c": 1.0}
	got, err := c.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
	// Into a map holding slices of the right length: first block of 2 does
	// not match length 3, so fresh slices are used and the result is the same.
	rec := map[string]any{"a": make([]float32, 3), "b": make([]int32, 3)}
	if err := c.DecodeInto(b, rec); err != nil || !reflect.DeepEqual(rec, want) {
		t.Fatalf("DecodeInto: %v %#v", err, rec)
	}
}

func TestDecode_OutOfRange(t *testing.T) {
	top := topic("T", "range", field("b", xml.Byte, 1), field("s", xml.Short, 2), field("u", xml.UnsignedInt, 1), field("us", xml.UnsignedShort, 1))
	c := mustNew(t, top)
	// 300, [70000, 1], -1, 65536 written as Avro ints/longs.
	b := []byte{0xd8, 0x04, 4, 0xe0, 0xc5, 0x08, 2, 0, 1, 0x80, 0x80, 0x08}
	rec := map[string]any{}
	iss, err := c.DecodeIssues(b, rec)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"b": uint8(44), "s": []int16{4464, 1}, "u": uint32(math.MaxUint32), "us": uint16(0)}
	if !reflect.DeepEqual(rec, want) {
		t.Fatalf("got %#v", rec)
	}
	if iss.OutOfRange != 4 || iss.Field != "b" || iss.NullDefaults != 0 {
		t.Fatalf("issues %+v", iss)
	}
	if _, err := c.Decode(b); err != nil {
		t.Fatal(err)
	}
	if s := c.Stats(); s.OutOfRange != 8 {
		t.Fatalf("stats %+v", s)
	}
}

func TestDecodeInto_Reuse(t *testing.T) {
	top := forceActuatorData()
	c := mustNew(t, top)
	r := rand.New(rand.NewPCG(11, 12))
	rec1 := randomRecord(r, top)
	rec2 := randomRecord(r, top)
	rec2["private_identity"] = rec1["private_identity"]
	b1, _ := c.Append(nil, rec1)
	b2, _ := c.Append(nil, rec2)
	rec := map[string]any{"extra": 1}
	if err := c.DecodeInto(b1, rec); err != nil {
		t.Fatal(err)
	}
	p := &rec["zForce"].([]float32)[0]
	if err := c.DecodeInto(b2, rec); err != nil {
		t.Fatal(err)
	}
	if &rec["zForce"].([]float32)[0] != p {
		t.Error("zForce slice not reused")
	}
	if rec["extra"] != 1 {
		t.Error("unrelated key changed")
	}
	delete(rec, "extra")
	if !reflect.DeepEqual(rec, rec2) {
		t.Fatal("DecodeInto result differs")
	}
	if a := testing.AllocsPerRun(100, func() { _ = c.DecodeInto(b2, rec) }); a > 16 {
		t.Errorf("DecodeInto reuse: %v allocs", a)
	}
	if err := c.DecodeInto(b1, nil); err == nil {
		t.Error("nil map: no error")
	}
}

func TestAppend_Allocs(t *testing.T) {
	top := forceActuatorData()
	c := mustNew(t, top)
	rec := randomRecord(rand.New(rand.NewPCG(13, 14)), top)
	buf := make([]byte, 0, c.SizeHint())
	if a := testing.AllocsPerRun(100, func() { buf, _ = c.Append(buf[:0], rec) }); a != 0 {
		t.Errorf("reused buffer: %v allocs", a)
	}
	if a := testing.AllocsPerRun(100, func() { _, _ = c.Append(nil, rec) }); a != 1 {
		t.Errorf("nil buffer: %v allocs", a)
	}
}

func TestFraming(t *testing.T) {
	b := codec.AppendHeader([]byte("x"), 0x01020304)
	if !bytes.Equal(b, []byte{'x', 0, 1, 2, 3, 4}) {
		t.Fatalf("header %x", b)
	}
	b = append(b, "body"...)
	id, body, err := codec.SplitHeader(b[1:])
	if err != nil || id != 0x01020304 || string(body) != "body" {
		t.Fatalf("%v %d %q", err, id, body)
	}
	id, body, err = codec.SplitHeader(codec.AppendHeader(nil, -1))
	if err != nil || id != -1 || len(body) != 0 {
		t.Fatalf("%v %d %q", err, id, body)
	}
	for _, short := range [][]byte{nil, {0}, {0, 0, 0, 1}} {
		if _, _, err := codec.SplitHeader(short); !errors.Is(err, codec.ErrTooShort) {
			t.Errorf("%x: %v", short, err)
		}
	}
	if _, _, err := codec.SplitHeader([]byte{1, 0, 0, 0, 1}); !errors.Is(err, codec.ErrBadMagic) {
		t.Errorf("bad magic: %v", err)
	}
}

func TestCheckSchema(t *testing.T) {
	for _, top := range []*xml.Topic{allTypes(), forceActuatorData(), bigDoubles()} {
		if err := codec.CheckSchema(schemaText(top)); err != nil {
			t.Errorf("%s: %v", top.SALName, err)
		}
	}
	for _, bad := range []string{`"int"`, `{"type": "record", "name": "a-b", "fields": []}`, `{`} {
		if err := codec.CheckSchema(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestDecode_SharedBacking checks that the arrays of a fresh record, which
// share a backing array, cannot overwrite each other through append.
func TestDecode_SharedBacking(t *testing.T) {
	top := forceActuatorData()
	c := mustNew(t, top)
	rec := randomRecord(rand.New(rand.NewPCG(15, 16)), top)
	b, _ := c.Append(nil, rec)
	for _, got := range []map[string]any{must(c.Decode(b)), intoEmpty(t, c, b)} {
		x := got["xForce"].([]float32)
		if len(x) != cap(x) {
			t.Fatalf("len %d cap %d", len(x), cap(x))
		}
		_ = append(x, 99)
		if !reflect.DeepEqual(got, rec) {
			t.Fatal("append to one array changed another")
		}
	}
}

func must(m map[string]any, err error) map[string]any {
	if err != nil {
		panic(err)
	}
	return m
}

func intoEmpty(t *testing.T, c *codec.Codec, b []byte) map[string]any {
	rec := map[string]any{}
	if err := c.DecodeInto(b, rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestDecodeError_Message(t *testing.T) {
	c := mustNew(t, topic("T", "m", field("a", xml.Int, 1), field("b", xml.String, 1)))
	_, err := c.Decode([]byte{2, 10, 'a'})
	if got, want := err.Error(), "codec: T.m: field b at byte 2: truncated input"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	_, err = c.Decode([]byte{2, 0, 7})
	if got, want := err.Error(), "codec: T.m at byte 2: trailing bytes after the record (2 of 3 bytes used)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
