package codec

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/hamba/avro/v2"

	"github.com/lsst-sal/salgo/internal/floatle"
	"github.com/lsst-sal/salgo/xml"
)

// TestDecode_HambaDefaultBlocks decodes what hamba writes with its default
// configuration: arrays in blocks of 100 items, each with a negative count
// and a byte size, and skips such arrays in unknown fields.
func TestDecode_HambaDefaultBlocks(t *testing.T) {
	fields := []*xml.Field{
		{Name: "f", Type: xml.Float, Count: 356},
		{Name: "d", Type: xml.Double, Count: 250},
		{Name: "i", Type: xml.Int, Count: 101},
		{Name: "s", Type: xml.String, Count: 1},
	}
	top := &xml.Topic{Component: "T", SALName: "blocks", Fields: fields}
	schema := `{"type": "record", "name": "blocks", "fields": [
		{"name": "f", "type": {"type": "array", "items": "float"}},
		{"name": "d", "type": {"type": "array", "items": "double"}},
		{"name": "i", "type": {"type": "array", "items": "int"}},
		{"name": "s", "type": "string"}]}`
	s := avro.MustParse(schema)
	r := rand.New(rand.NewPCG(1, 1))
	rec := map[string]any{"f": make([]float32, 356), "d": make([]float64, 250), "i": make([]int32, 101), "s": "x"}
	for i := range 356 {
		rec["f"].([]float32)[i] = r.Float32()
	}
	for i := range 250 {
		rec["d"].([]float64)[i] = r.Float64()
	}
	for i := range 101 {
		rec["i"].([]int32)[i] = r.Int32() - 1<<30
	}
	b, err := avro.Config{}.Freeze().Marshal(s, rec)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(top)
	if err != nil {
		t.Fatal(err)
	}
	ours, _ := c.Append(nil, rec)
	if len(b) == len(ours) {
		t.Fatalf("hamba's default layout unexpectedly matches ours (%d bytes)", len(b))
	}
	got, err := c.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rec) {
		t.Fatal("decode of hamba's blocks differs")
	}
	// Skipped as unknown writer fields.
	d, err := NewResolving(schema, &xml.Topic{Component: "T", SALName: "blocks", Fields: fields[3:]})
	if err != nil {
		t.Fatal(err)
	}
	got, err = d.Decode(b)
	if err != nil || !reflect.DeepEqual(got, map[string]any{"s": "x"}) {
		t.Fatalf("skip: %v %#v", err, got)
	}
}

// TestSkip_Recursion checks that a record that recurses without consuming
// input fails instead of exhausting the stack.
func TestSkip_Recursion(t *testing.T) {
	schema := `{"type": "record", "name": "w", "fields": [
		{"name": "loop", "type": {"type": "record", "name": "L", "fields": [
			{"name": "x", "type": {"type": "array", "items": "L"}}]}},
		{"name": "a", "type": "int"}]}`
	d, err := NewResolving(schema, &xml.Topic{Component: "T", SALName: "w", Fields: []*xml.Field{{Name: "a", Type: xml.Int, Count: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	// Each level: array block of 1 item, then the nested record.
	var b []byte
	for range 10000 {
		b = append(b, 2)
	}
	if _, err := d.Decode(b); err == nil {
		t.Fatal("no error")
	}
	// A legitimate depth of 10 decodes.
	b = b[:0]
	for range 10 {
		b = append(b, 2)
	}
	for range 11 {
		b = append(b, 0)
	}
	b = append(b, 84)
	got, err := d.Decode(b)
	if err != nil || got["a"] != int32(42) {
		t.Fatalf("%v %v", err, got)
	}
}

func TestSizeHint(t *testing.T) {
	fs := []*xml.Field{{Name: "s", Type: xml.String, Count: 1}}
	for i := range 3 {
		fs = append(fs, &xml.Field{Name: "a" + strconv.Itoa(i), Type: xml.LongLong, Count: 10, Nullable: i == 1})
	}
	c, err := New(&xml.Topic{Fields: fs})
	if err != nil {
		t.Fatal(err)
	}
	if want := 5 + stringHint + 3*(1+10*10+1) + 1; c.SizeHint() != want {
		t.Fatalf("SizeHint %d, want %d", c.SizeHint(), want)
	}
}

// TestDecode_PortableFloats decodes float and double arrays with the
// byte-order independent loops a big-endian machine uses, and checks they
// agree with the copy used on little-endian ones.
func TestDecode_PortableFloats(t *testing.T) {
	top := &xml.Topic{Component: "T", SALName: "p", Fields: []*xml.Field{
		{Name: "f", Type: xml.Float, Count: 13}, {Name: "d", Type: xml.Double, Count: 7},
		{Name: "x", Type: xml.Float, Count: 1}, {Name: "y", Type: xml.Double, Count: 1}}}
	c, err := New(top)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(2, 3))
	rec := map[string]any{"f": make([]float32, 13), "d": make([]float64, 7), "x": r.Float32(), "y": r.Float64()}
	for i := range 13 {
		rec["f"].([]float32)[i] = r.Float32() - 0.5
	}
	for i := range 7 {
		rec["d"].([]float64)[i] = r.Float64() - 0.5
	}
	b, _ := c.Append(nil, rec)
	defer func(le bool) { floatle.NativeLE = le }(floatle.NativeLE)
	for _, le := range []bool{true, false} {
		floatle.NativeLE = le
		got, err := c.Decode(b)
		if err != nil || !reflect.DeepEqual(got, rec) {
			t.Errorf("nativeLE %v: %v %#v", le, err, got)
		}
	}
}
