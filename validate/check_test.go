package validate_test

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/validate"
)

func TestCheck_OK(t *testing.T) {
	v := validate.Compile(forceActuatorTopic())
	r := v.Check(forceActuatorRecord(forceActuatorTopic()))
	if !r.OK() || r.String() != "ok" || r.First != nil || r.Total() != 0 {
		t.Fatalf("got %v", r)
	}
}

func TestCheck_Counts(t *testing.T) {
	tests := []struct {
		name   string
		change func(rec map[string]any)
		want   validate.Report // First ignored
		rule   error
	}{
		{"array short", func(r map[string]any) { r["float0"] = []float32{1} }, validate.Report{ArrayLength: 1}, validate.ErrArrayLength},
		{"array long", func(r map[string]any) { r["int0"] = make([]int32, 9) }, validate.Report{ArrayLength: 1}, validate.ErrArrayLength},
		{"array any", func(r map[string]any) { r["double0"] = []any{1.0, 2.0, 3.0, 4.0, 5.0} }, validate.Report{Type: 1}, validate.ErrType},
		{"array any short", func(r map[string]any) { r["double0"] = []any{1.0} }, validate.Report{Type: 1, ArrayLength: 1}, validate.ErrType},
		{"array scalar", func(r map[string]any) { r["double0"] = 1.0 }, validate.Report{Type: 1}, validate.ErrType},
		{"array nil", func(r map[string]any) { r["double0"] = nil }, validate.Report{Type: 1}, validate.ErrNull},
		{"array wrong type", func(r map[string]any) { r["byte0"] = []int{1, 2, 3, 4, 5} }, validate.Report{Type: 1}, validate.ErrType},
		{"missing", func(r map[string]any) { delete(r, "long0"); delete(r, "short0") }, validate.Report{Missing: 2}, validate.ErrMissingField},
		{"unknown", func(r map[string]any) { r["b"] = 1; r["a"] = 2 }, validate.Report{Unknown: 2}, validate.ErrUnknownField},
		{"missing and unknown", func(r map[string]any) { delete(r, "long0"); r["x"] = 1 }, validate.Report{Missing: 1, Unknown: 1}, validate.ErrMissingField},
	}
	v := validate.Compile(arraysTopic())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := v.New()
			tt.change(rec)
			before := copyRecord(rec)
			r := v.Check(rec)
			if !sameRecord(rec, before) {
				t.Error("Check changed the record")
			}
			first := r.First
			r.First = nil
			if r != tt.want {
				t.Errorf("got %+v, want %+v", r, tt.want)
			}
			if r.OK() || first == nil || !errors.Is(first, tt.rule) {
				t.Errorf("OK %v, first %v, want rule %v", r.OK(), first, tt.rule)
			}
		})
	}
}

func TestCheck_Scalars(t *testing.T) {
	v := validate.Compile(scalarsTopic())
	rec := v.New()
	rec["byte0"] = 3      // hamba int: not canonical
	rec["float0"] = 1.5   // float64 for float
	rec["boolean0"] = nil // nil, not nullable
	rec["string0"] = strings.Repeat("x", 21)
	rec["private_identity"] = "\xff"
	r := v.Check(rec)
	want := validate.Report{Type: 3, StringLength: 1, Encoding: 1}
	first := r.First
	r.First = nil
	if r != want {
		t.Fatalf("got %+v, want %+v", r, want)
	}
	r.First = first
	const wantText = "5 violations (3 type, 1 string length, 1 encoding); first: validate: Example.command_setScalars: field private_identity: string \"\\xff\" is not valid UTF-8"
	if r.String() != wantText {
		t.Errorf("String():\n got %s\nwant %s", r, wantText)
	}
}

// TestCheck_NeverPanics: whatever a record holds (nil, no fields, every
// field set to a value of some wrong type), Check does not panic and
// reports the record as broken, naming a field of the topic first; and
// Validate (and Normalize, for non-nil values, which it leaves alone)
// rejects every such value with an error naming a field.
func TestCheck_NeverPanics(t *testing.T) {
	values := []any{nil, 1, -1, 1.5, "s", true, []any{nil, "x"}, []int{1}, map[string]any{}, struct{}{}, []float32{}, []string{"a"}, make(chan int)}
	for _, v := range []*validate.Validator{validate.Compile(scalarsTopic()), validate.Compile(arraysTopic()), validate.Compile(cameraTopic())} {
		tp := v.Topic()
		fields := map[string]bool{}
		for _, f := range tp.Fields {
			fields[f.Name] = true
		}
		check := func(what string, rec map[string]any) {
			t.Helper()
			r := v.Check(rec)
			if r.OK() || r.Total() == 0 || r.First == nil || !strings.Contains(r.String(), "violation") {
				t.Errorf("%s, %s: Check reports %q (%+v), want violations", tp, what, r.String(), r)
				return
			}
			if !fields[r.First.Field] {
				t.Errorf("%s, %s: first violation names %q, not a field of the topic", tp, what, r.First.Field)
			}
		}
		rejects := func(what, name string, run func(map[string]any) error, rec map[string]any) {
			t.Helper()
			var fe *validate.FieldError
			if err := run(maps.Clone(rec)); !errors.As(err, &fe) || !fields[fe.Field] {
				t.Errorf("%s, %s: %s returned %v, want a *FieldError naming a field", tp, what, name, err)
			}
		}
		check("nil record", nil)
		if err := v.Validate(nil); err == nil {
			t.Errorf("%s: Validate(nil) returned nil", tp)
		}
		check("empty record", map[string]any{})
		if r := v.Check(map[string]any{}); r.Missing != len(tp.Fields) {
			t.Errorf("%s, empty record: %d missing, want %d", tp, r.Missing, len(tp.Fields))
		}
		for _, x := range values {
			rec := v.New()
			for k := range rec {
				rec[k] = x
			}
			what := fmt.Sprintf("every field %T(%v)", x, x)
			check(what, rec)
			rejects(what, "Validate", v.Validate, rec)
			if x != nil {
				rejects(what, "Normalize", v.Normalize, rec)
			}
		}
	}
}

func TestCheck_Nullable(t *testing.T) {
	v := validate.Compile(cameraTopic())
	rec := v.New()
	if r := v.Check(rec); !r.OK() {
		t.Fatal(r)
	}
	rec["volts"] = []float64{1, 2, 3}
	rec["temp"] = float32(1)
	if r := v.Check(rec); !r.OK() {
		t.Fatal(r)
	}
}
