package validate_test

import (
	"testing"

	"github.com/lsst-sal/salgo/validate"
	"github.com/lsst-sal/salgo/xml"
)

// TestValues_Gathers: a complete, canonical record passes and its values
// come out in field order; FieldIndex and NumFields agree with that order.
func TestValues_Gathers(t *testing.T) {
	for _, top := range []func() *xml.Topic{scalarsTopic, arraysTopic, forceActuatorTopic} {
		tp := top()
		v := validate.Compile(tp)
		rec := v.New()
		vals := make([]any, v.NumFields())
		if !v.Values(rec, vals, nil) {
			t.Fatalf("%s: a new record does not pass", tp)
		}
		if v.NumFields() != len(tp.Fields) {
			t.Fatalf("%s: NumFields %d, want %d", tp, v.NumFields(), len(tp.Fields))
		}
		for i, f := range tp.Fields {
			if v.FieldIndex(f.Name) != i || !same(vals[i], rec[f.Name]) {
				t.Errorf("%s: field %s: index %d, value %v; want %d, %v", tp, f.Name, v.FieldIndex(f.Name), vals[i], i, rec[f.Name])
			}
		}
		if v.FieldIndex("nope") != -1 {
			t.Errorf("%s: FieldIndex of an unknown field is not -1", tp)
		}
	}
}

// TestValues_Refuses: whatever Validate would have to fix or report makes
// Values return false: a missing field, an unknown key, a value of
// another type, a too-long string, and wrong slice lengths.
func TestValues_Refuses(t *testing.T) {
	tp := scalarsTopic()
	v := validate.Compile(tp)
	vals := make([]any, v.NumFields())
	for name, change := range map[string]func(map[string]any){
		"missing":      func(r map[string]any) { delete(r, "int0") },
		"unknown":      func(r map[string]any) { r["nope"] = 1 },
		"type":         func(r map[string]any) { r["int0"] = 3 },
		"long string":  func(r map[string]any) { r["string0"] = "123456789012345678901" },
		"bad encoding": func(r map[string]any) { r["string0"] = "\xff" },
	} {
		rec := v.New()
		change(rec)
		if v.Values(rec, vals, nil) {
			t.Errorf("%s: Values passed", name)
		}
	}
	if v.Values(v.New(), vals[1:], nil) || v.Values(v.New(), vals, make([]bool, 3)) {
		t.Error("Values passed with slices of the wrong length")
	}
	arr := validate.Compile(arraysTopic())
	rec := arr.New()
	rec["float0"] = []float32{1, 2}
	if arr.Values(rec, make([]any, arr.NumFields()), nil) {
		t.Error("an array of the wrong length passed")
	}
}

// TestValues_Known: a field marked known is taken from vals and checked
// there, not looked up: its value in rec does not matter, a wrong value
// in vals fails.
func TestValues_Known(t *testing.T) {
	tp := scalarsTopic()
	v := validate.Compile(tp)
	known := make([]bool, v.NumFields())
	i := v.FieldIndex("private_seqNum")
	known[i] = true
	rec := v.New()
	vals := make([]any, v.NumFields())
	vals[i] = int32(42)
	if !v.Values(rec, vals, known) || vals[i] != int32(42) {
		t.Fatalf("known field: passed %v, value %v; want true, 42", v.Values(rec, vals, known), vals[i])
	}
	vals[i] = "42"
	if v.Values(rec, vals, known) {
		t.Error("a known value of the wrong type passed")
	}
	delete(rec, "private_seqNum") // rec now has one key too few
	vals[i] = int32(42)
	if v.Values(rec, vals, known) {
		t.Error("a record lacking a known field's key passed (it has fewer keys than fields)")
	}
}
