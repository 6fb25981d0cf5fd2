package validate_test

import (
	"errors"
	"math"
	"testing"

	"github.com/lsst-sal/salgo/validate"
)

// hambaScalars is what hamba/avro's generic decoder returns for
// Example.command_setScalars: int for every Avro int, int64 for every Avro
// long, float32 for float.
func hambaScalars() map[string]any {
	return map[string]any{
		"private_sndStamp": 1.5, "private_rcvStamp": 0.0, "private_efdStamp": 0.0, "private_kafkaStamp": 0.0,
		"private_seqNum": 7, "private_revCode": "abcd1234", "private_identity": "Example", "private_origin": 1234,
		"boolean0": true, "byte0": 255, "short0": -5, "int0": 100000, "long0": -1,
		"longLong0": int64(1) << 40, "unsignedShort0": 65535, "unsignedInt0": int64(4294967295),
		"float0": float32(0.25), "double0": 2.5, "string0": "text",
	}
}

func TestNormalize_HambaScalars(t *testing.T) {
	top := scalarsTopic()
	v := validate.Compile(top)
	rec := hambaScalars()
	if err := v.Normalize(rec); err != nil {
		t.Fatal(err)
	}
	checkCanonical(t, top, rec)
	want := map[string]any{
		"private_seqNum": int32(7), "private_origin": int32(1234), "byte0": uint8(255), "short0": int16(-5),
		"int0": int32(100000), "long0": int32(-1), "longLong0": int64(1) << 40, "unsignedShort0": uint16(65535),
		"unsignedInt0": uint32(4294967295), "float0": float32(0.25), "double0": 2.5,
	}
	for k, w := range want {
		if rec[k] != w {
			t.Errorf("%s = %#v, want %#v", k, rec[k], w)
		}
	}
	// Normalizing a canonical record changes nothing.
	before := copyRecord(rec)
	if err := v.Normalize(rec); err != nil || !sameRecord(rec, before) {
		t.Fatalf("second Normalize: %v", err)
	}
}

func TestNormalize_HambaArrays(t *testing.T) {
	top := arraysTopic()
	v := validate.Compile(top)
	five := func(x any) []any { return []any{x, x, x, x, x} }
	rec := map[string]any{
		"boolean0": five(true), "byte0": five(200), "short0": five(-3), "int0": five(4), "long0": five(5),
		"longLong0": five(int64(6)), "unsignedShort0": five(7), "unsignedInt0": five(int64(8)),
		"float0": five(float32(0.5)), "double0": five(0.25),
	}
	if err := v.Normalize(rec); err != nil {
		t.Fatal(err)
	}
	checkCanonical(t, top, rec)
	if !equalSlices(rec["byte0"], []uint8{200, 200, 200, 200, 200}) || !equalSlices(rec["unsignedInt0"], []uint32{8, 8, 8, 8, 8}) {
		t.Errorf("got %v", rec)
	}
}

func TestNormalize_IgnoresSchemaRules(t *testing.T) {
	v := validate.Compile(arraysTopic())
	rec := map[string]any{
		"int0":    []any{1, 2},          // wrong length: converted anyway
		"float0":  []float32{1},         // canonical, wrong length: left alone
		"unknown": "x",                  // unknown: left alone
		"double0": nil,                  // nil: left alone
		"byte0":   []any{1, 2, 3, 4, 5}, // converted
	}
	if err := v.Normalize(rec); err != nil {
		t.Fatal(err)
	}
	if !equalSlices(rec["int0"], []int32{1, 2}) || rec["unknown"] != "x" || rec["double0"] != nil || len(rec) != 5 {
		t.Fatalf("got %#v", rec)
	}
	if r := v.Check(rec); r.ArrayLength != 2 || r.Missing != 6 || r.Unknown != 1 || r.Type != 1 {
		t.Errorf("Check after Normalize: %+v", r)
	}
}

func TestNormalize_Unrepresentable(t *testing.T) {
	v := validate.Compile(scalarsTopic())
	rec := hambaScalars()
	rec["byte0"] = 256
	rec["short0"] = "x"
	rec["int0"] = 1.5
	rec["longLong0"] = uint64(math.MaxUint64)
	fes := wantRules(t, v.Normalize(rec), validate.ErrRange, validate.ErrType, validate.ErrType, validate.ErrRange)
	if fes[0].Field != "byte0" || fes[3].Field != "longLong0" {
		t.Errorf("errors %v", fes)
	}
	if rec["private_seqNum"] != 7 {
		t.Error("record changed by a failed Normalize")
	}
}

func TestNormalize_UnionMaps(t *testing.T) {
	top := cameraTopic()
	v := validate.Compile(top)
	rec := map[string]any{
		"temp":  map[string]any{"float": float32(1.5)},
		"label": map[string]any{"string": "x"},
		"volts": map[string]any{"array": []any{1.0, 2.0, 3.0}},
		"rebId": 4,
		"name":  nil,
	}
	if err := v.Normalize(rec); err != nil {
		t.Fatal(err)
	}
	if rec["temp"] != float32(1.5) || rec["label"] != "x" || !equalSlices(rec["volts"], []float64{1, 2, 3}) || rec["rebId"] != int32(4) {
		t.Fatalf("got %#v", rec)
	}
	// A union map under the wrong branch name is a type error.
	rec["temp"] = map[string]any{"double": 1.5}
	if err := v.Normalize(rec); !errors.Is(err, validate.ErrType) {
		t.Fatalf("got %v", err)
	}
	// Validate does not accept union maps.
	rec["temp"] = map[string]any{"float": float32(1.5)}
	if err := v.Validate(rec); !errors.Is(err, validate.ErrType) {
		t.Fatalf("Validate: %v", err)
	}
}
