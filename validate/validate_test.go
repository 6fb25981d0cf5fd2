package validate_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/lsst-sal/salgo/validate"
	"github.com/lsst-sal/salgo/xml"
)

func TestCanonical(t *testing.T) {
	tests := []struct {
		typ           xml.Type
		scalar, array string
		zero          any
	}{
		{xml.Boolean, "bool", "[]bool", false},
		{xml.Byte, "uint8", "[]uint8", uint8(0)},
		{xml.Short, "int16", "[]int16", int16(0)},
		{xml.Int, "int32", "[]int32", int32(0)},
		{xml.Long, "int32", "[]int32", int32(0)},
		{xml.LongLong, "int64", "[]int64", int64(0)},
		{xml.UnsignedShort, "uint16", "[]uint16", uint16(0)},
		{xml.UnsignedInt, "uint32", "[]uint32", uint32(0)},
		{xml.Float, "float32", "[]float32", float32(0)},
		{xml.Double, "float64", "[]float64", float64(0)},
		{xml.String, "string", "string", ""},
		{xml.Type(0), "", "", nil},
		{xml.Type(99), "", "", nil},
	}
	for _, tt := range tests {
		if got := validate.Canonical(tt.typ, false); got != tt.scalar {
			t.Errorf("Canonical(%v, false) = %q, want %q", tt.typ, got, tt.scalar)
		}
		if got := validate.Canonical(tt.typ, true); got != tt.array {
			t.Errorf("Canonical(%v, true) = %q, want %q", tt.typ, got, tt.array)
		}
		if got := validate.Zero(tt.typ); got != tt.zero {
			t.Errorf("Zero(%v) = %#v, want %#v", tt.typ, got, tt.zero)
		}
	}
}

func TestCompile_Topic(t *testing.T) {
	top := scalarsTopic()
	v := validate.Compile(top)
	if v.Topic() != top {
		t.Fatal("Topic() is not the compiled topic")
	}
	defer func() {
		if recover() == nil {
			t.Error("Compile(nil) did not panic")
		}
	}()
	validate.Compile(nil)
}

func TestNew(t *testing.T) {
	for _, top := range []*xml.Topic{scalarsTopic(), arraysTopic(), cameraTopic(), forceActuatorTopic()} {
		v := validate.Compile(top)
		a, b := v.New(), v.New()
		checkCanonical(t, top, a)
		for _, f := range top.Fields {
			if f.Count > 1 && !f.Nullable && same(a[f.Name], b[f.Name]) {
				t.Errorf("%s: two New records share the slice of %s", top, f.Name)
			}
			if f.Nullable && a[f.Name] != nil {
				t.Errorf("%s: nullable %s = %v, want nil", top, f.Name, a[f.Name])
			}
		}
	}
	rec := validate.Compile(scalarsTopic()).New()
	want := map[string]any{
		"boolean0": false, "byte0": uint8(0), "short0": int16(0), "int0": int32(0), "long0": int32(0),
		"longLong0": int64(0), "unsignedShort0": uint16(0), "unsignedInt0": uint32(0),
		"float0": float32(0), "double0": float64(0), "string0": "",
	}
	for k, w := range want {
		if rec[k] != w {
			t.Errorf("New()[%s] = %#v, want %#v", k, rec[k], w)
		}
	}
}

func TestValidate_CanonicalUnchanged(t *testing.T) {
	for _, top := range []*xml.Topic{scalarsTopic(), arraysTopic(), forceActuatorTopic()} {
		v := validate.Compile(top)
		rec := v.New()
		before := copyRecord(rec)
		if err := v.Validate(rec); err != nil {
			t.Fatalf("%s: %v", top, err)
		}
		if !sameRecord(rec, before) {
			t.Errorf("%s: Validate changed a canonical record", top)
		}
	}
}

// scalarCase is one value for one field of scalarsTopic: the result wanted
// (a canonical value) or the rule broken.
type scalarCase struct {
	field string
	in    any
	want  any
	rule  error
}

func runScalarCases(t *testing.T, cases []scalarCase) {
	t.Helper()
	v := validate.Compile(scalarsTopic())
	for _, c := range cases {
		rec := v.New()
		rec[c.field] = c.in
		err := v.Validate(rec)
		if c.rule != nil {
			fes := wantRules(t, err, c.rule)
			if fes[0].Field != c.field || fes[0].Index != -1 {
				t.Errorf("%s = %#v: error on %s[%d]", c.field, c.in, fes[0].Field, fes[0].Index)
			}
			if !same(rec[c.field], c.in) && !(c.in == nil && rec[c.field] == nil) {
				t.Errorf("%s = %#v: rejected value was changed to %#v", c.field, c.in, rec[c.field])
			}
			continue
		}
		if err != nil {
			t.Errorf("%s = %#v (%T): %v", c.field, c.in, c.in, err)
			continue
		}
		if !same(rec[c.field], c.want) {
			t.Errorf("%s = %#v (%T): got %#v (%T), want %#v (%T)", c.field, c.in, c.in, rec[c.field], rec[c.field], c.want, c.want)
		}
	}
}

func TestValidate_ByteRange(t *testing.T) {
	runScalarCases(t, []scalarCase{
		{"byte0", uint8(7), uint8(7), nil},
		{"byte0", 0, uint8(0), nil},
		{"byte0", 255, uint8(255), nil},
		{"byte0", 256, nil, validate.ErrRange},
		{"byte0", -1, nil, validate.ErrRange},
		{"byte0", int8(-1), nil, validate.ErrRange},
		{"byte0", uint64(255), uint8(255), nil},
		{"byte0", 255.0, uint8(255), nil},
		{"byte0", 256.0, nil, validate.ErrRange},
	})
}

func TestValidate_ShortRange(t *testing.T) {
	runScalarCases(t, []scalarCase{
		{"short0", math.MinInt16, int16(math.MinInt16), nil},
		{"short0", math.MaxInt16, int16(math.MaxInt16), nil},
		{"short0", math.MaxInt16 + 1, nil, validate.ErrRange},
		{"short0", math.MinInt16 - 1, nil, validate.ErrRange},
		{"short0", uint8(200), int16(200), nil},
	})
}

func TestValidate_IntAndLongRange(t *testing.T) {
	for _, name := range []string{"int0", "long0"} {
		runScalarCases(t, []scalarCase{
			{name, int32(-5), int32(-5), nil},
			{name, math.MinInt32, int32(math.MinInt32), nil},
			{name, math.MaxInt32, int32(math.MaxInt32), nil},
			{name, int64(math.MaxInt32) + 1, nil, validate.ErrRange},
			{name, int64(math.MinInt32) - 1, nil, validate.ErrRange},
			{name, uint32(math.MaxUint32), nil, validate.ErrRange},
			{name, float64(math.MaxInt32), int32(math.MaxInt32), nil},
			{name, 2147483648.0, nil, validate.ErrRange},
		})
	}
}

func TestValidate_LongLongRange(t *testing.T) {
	runScalarCases(t, []scalarCase{
		{"longLong0", math.MinInt64, int64(math.MinInt64), nil},
		{"longLong0", math.MaxInt64, int64(math.MaxInt64), nil},
		{"longLong0", uint64(math.MaxInt64), int64(math.MaxInt64), nil},
		{"longLong0", uint64(math.MaxInt64) + 1, nil, validate.ErrRange},
		{"longLong0", uint(math.MaxUint64), nil, validate.ErrRange},
		{"longLong0", -9223372036854775808.0, int64(math.MinInt64), nil},
		{"longLong0", 9223372036854775808.0, nil, validate.ErrRange},
		{"longLong0", 1e300, nil, validate.ErrRange},
		{"longLong0", float32(1 << 40), int64(1 << 40), nil},
	})
}

func TestValidate_UnsignedRange(t *testing.T) {
	runScalarCases(t, []scalarCase{
		{"unsignedShort0", 0, uint16(0), nil},
		{"unsignedShort0", 65535, uint16(65535), nil},
		{"unsignedShort0", 65536, nil, validate.ErrRange},
		{"unsignedShort0", -1, nil, validate.ErrRange},
		{"unsignedInt0", 0, uint32(0), nil},
		{"unsignedInt0", int64(4294967295), uint32(4294967295), nil},
		{"unsignedInt0", 4294967295.0, uint32(4294967295), nil},
		{"unsignedInt0", int64(4294967296), nil, validate.ErrRange},
		{"unsignedInt0", -1, nil, validate.ErrRange},
		{"unsignedInt0", -1.0, nil, validate.ErrRange},
	})
}

func TestValidate_FloatForInteger(t *testing.T) {
	runScalarCases(t, []scalarCase{
		{"int0", 3.0, int32(3), nil},
		{"int0", -3.0, int32(-3), nil},
		{"int0", math.Copysign(0, -1), int32(0), nil},
		{"int0", 3.5, nil, validate.ErrType},
		{"int0", float32(3.5), nil, validate.ErrType},
		{"int0", math.NaN(), nil, validate.ErrType},
		{"int0", math.Inf(1), nil, validate.ErrRange},
		{"byte0", 0.5, nil, validate.ErrType},
		{"longLong0", 1e-300, nil, validate.ErrType},
	})
}

func TestValidate_JSONNumber(t *testing.T) {
	runScalarCases(t, []scalarCase{
		{"int0", json.Number("42"), int32(42), nil},
		{"int0", json.Number("42.0"), int32(42), nil},
		{"int0", json.Number("4.2e1"), int32(42), nil},
		{"int0", json.Number("42.5"), nil, validate.ErrType},
		{"int0", json.Number("abc"), nil, validate.ErrType},
		{"unsignedInt0", json.Number("4294967295"), uint32(4294967295), nil},
		{"longLong0", json.Number("18446744073709551615"), nil, validate.ErrRange},
		{"longLong0", json.Number("1e400"), nil, validate.ErrRange},
		{"float0", json.Number("0.1"), float32(0.1), nil},
		{"float0", json.Number("1e39"), nil, validate.ErrRange},
		{"double0", json.Number("1e400"), nil, validate.ErrRange},
		{"double0", json.Number("-2.5"), -2.5, nil},
		{"string0", json.Number("1"), nil, validate.ErrType},
	})
}

func TestValidate_Floats(t *testing.T) {
	runScalarCases(t, []scalarCase{
		{"float0", float32(1.5), float32(1.5), nil},
		{"float0", 0.1, float32(0.1), nil},
		{"float0", math.MaxFloat32, float32(math.MaxFloat32), nil},
		{"float0", -math.MaxFloat32, float32(-math.MaxFloat32), nil},
		{"float0", math.SmallestNonzeroFloat64, float32(0), nil},
		{"float0", 1e39, nil, validate.ErrRange},
		{"float0", -1e39, nil, validate.ErrRange},
		{"float0", math.MaxFloat64, nil, validate.ErrRange},
		{"float0", math.NaN(), float32(math.NaN()), nil},
		{"float0", math.Inf(1), float32(math.Inf(1)), nil},
		{"float0", math.Inf(-1), float32(math.Inf(-1)), nil},
		{"float0", 3, float32(3), nil},
		{"float0", int64(-7), float32(-7), nil},
		{"float0", uint64(math.MaxUint64), float32(math.MaxUint64), nil},
		{"double0", 2.5, 2.5, nil},
		{"double0", float32(0.1), float64(float32(0.1)), nil},
		{"double0", math.MaxFloat64, math.MaxFloat64, nil},
		{"double0", math.NaN(), math.NaN(), nil},
		{"double0", 7, 7.0, nil},
		{"double0", uint32(9), 9.0, nil},
	})
}

func TestValidate_TypeErrors(t *testing.T) {
	runScalarCases(t, []scalarCase{
		{"boolean0", true, true, nil},
		{"boolean0", 1, nil, validate.ErrType},
		{"boolean0", "true", nil, validate.ErrType},
		{"byte0", true, nil, validate.ErrType},
		{"byte0", "1", nil, validate.ErrType},
		{"int0", []int32{1}, nil, validate.ErrType},
		{"int0", struct{}{}, nil, validate.ErrType},
		{"int0", map[string]any{"int": 1}, nil, validate.ErrType},
		{"float0", "1.5", nil, validate.ErrType},
		{"double0", false, nil, validate.ErrType},
		{"string0", 5, nil, validate.ErrType},
		{"string0", []byte("abc"), nil, validate.ErrType},
	})
}

func TestValidate_NamedTypeRejected(t *testing.T) {
	type state int32
	runScalarCases(t, []scalarCase{{"int0", state(2), nil, validate.ErrType}})
}

func TestValidate_Strings(t *testing.T) {
	runScalarCases(t, []scalarCase{
		{"string0", "", "", nil},
		{"string0", strings.Repeat("a", 20), strings.Repeat("a", 20), nil},
		{"string0", strings.Repeat("a", 21), nil, validate.ErrStringLength},
		{"string0", strings.Repeat("é", 10), strings.Repeat("é", 10), nil},  // 20 bytes
		{"string0", strings.Repeat("é", 11), nil, validate.ErrStringLength}, // 11 runes, 22 bytes
		{"string0", "a\xffb", nil, validate.ErrEncoding},
		{"private_identity", strings.Repeat("x", 10000), strings.Repeat("x", 10000), nil}, // unbounded
		{"private_identity", "\xc3", nil, validate.ErrEncoding},
	})
	// Both rules at once: two errors for one field.
	v := validate.Compile(scalarsTopic())
	rec := v.New()
	rec["string0"] = strings.Repeat("\xff", 21)
	wantRules(t, v.Validate(rec), validate.ErrStringLength, validate.ErrEncoding)
}

func TestValidate_StringSizeOne(t *testing.T) {
	// IDL_Size 1 means unbounded.
	top := &xml.Topic{Component: "C", SALName: "t", Fields: []*xml.Field{{Name: "s", Type: xml.String, Count: 1, Size: 1}}}
	if err := validate.Compile(top).Validate(map[string]any{"s": "long enough"}); err != nil {
		t.Fatal(err)
	}
}

func TestValidate_StringCountIgnored(t *testing.T) {
	// Strings are never arrays: Count > 1 is ignored, as in the reference.
	top := &xml.Topic{Component: "C", SALName: "t", Fields: []*xml.Field{{Name: "s", Type: xml.String, Count: 4}}}
	v := validate.Compile(top)
	if got := v.New()["s"]; got != "" {
		t.Fatalf("default = %#v, want \"\"", got)
	}
	if err := v.Validate(map[string]any{"s": "x"}); err != nil {
		t.Fatal(err)
	}
}

// arrayCase is one value for one field of arraysTopic.
type arrayCase struct {
	name  string
	field string
	in    any
	want  any // canonical slice; nil when an error is wanted
	rules []error
	index []int // Index of each error
}

func TestValidate_Arrays(t *testing.T) {
	cases := []arrayCase{
		{"bool canonical", "boolean0", []bool{true, false, true, false, true}, []bool{true, false, true, false, true}, nil, nil},
		{"bool from any", "boolean0", []any{true, false, true, false, true}, []bool{true, false, true, false, true}, nil, nil},
		{"bool from ints", "boolean0", []int{1, 0, 1, 0, 1}, nil, []error{validate.ErrType}, []int{-1}},
		{"bool any with int", "boolean0", []any{true, 1, true, false, true}, nil, []error{validate.ErrType}, []int{1}},
		{"byte from ints", "byte0", []int{0, 1, 2, 254, 255}, []uint8{0, 1, 2, 254, 255}, nil, nil},
		{"byte from json", "byte0", []any{0.0, 1.0, 2.0, 3.0, 255.0}, []uint8{0, 1, 2, 3, 255}, nil, nil},
		{"byte out of range", "byte0", []int{0, 256, 2, -1, 4}, nil, []error{validate.ErrRange, validate.ErrRange}, []int{1, 3}},
		{"byte from bools", "byte0", []bool{true, true, true, true, true}, nil, []error{validate.ErrType}, []int{-1}},
		{"short from int64", "short0", []int64{-32768, 32767, 0, 1, 2}, []int16{-32768, 32767, 0, 1, 2}, nil, nil},
		{"int from int16", "int0", []int16{1, 2, 3, 4, 5}, []int32{1, 2, 3, 4, 5}, nil, nil},
		{"int fraction", "int0", []any{1.0, 2.5, 3.0, 4.0, 5.0}, nil, []error{validate.ErrType}, []int{1}},
		{"int string elem", "int0", []any{1.0, "2", 3.0, 4.0, 5.0}, nil, []error{validate.ErrType}, []int{1}},
		{"int nil elem", "int0", []any{1.0, nil, 3.0, 4.0, 5.0}, nil, []error{validate.ErrType}, []int{1}},
		{"long from uint8", "long0", []uint8{1, 2, 3, 4, 5}, []int32{1, 2, 3, 4, 5}, nil, nil},
		{"long long from uint64", "longLong0", []uint64{1, 2, 3, 4, 1 << 63}, nil, []error{validate.ErrRange}, []int{4}},
		{"long long from json numbers", "longLong0", []json.Number{"1", "2", "3", "4", "9223372036854775807"}, []int64{1, 2, 3, 4, math.MaxInt64}, nil, nil},
		{"unsigned short from uint", "unsignedShort0", []uint{1, 2, 3, 4, 65535}, []uint16{1, 2, 3, 4, 65535}, nil, nil},
		{"unsigned int max", "unsignedInt0", []int64{0, 1, 2, 3, 4294967295}, []uint32{0, 1, 2, 3, 4294967295}, nil, nil},
		{"unsigned int negative", "unsignedInt0", []int{0, 1, 2, 3, -1}, nil, []error{validate.ErrRange}, []int{4}},
		{"float from float64", "float0", []float64{0.1, 1, 2, 3, math.NaN()}, []float32{0.1, 1, 2, 3, float32(math.NaN())}, nil, nil},
		{"float from ints", "float0", []int{1, 2, 3, 4, 5}, []float32{1, 2, 3, 4, 5}, nil, nil},
		{"float too big", "float0", []float64{1, 1e39, 2, 3, 4}, nil, []error{validate.ErrRange}, []int{1}},
		{"double from float32", "double0", []float32{1, 2, 3, 4, 0.5}, []float64{1, 2, 3, 4, 0.5}, nil, nil},
		{"double from any", "double0", []any{1.0, 2, int64(3), float32(4), json.Number("5")}, []float64{1, 2, 3, 4, 5}, nil, nil},
		{"double bool elem", "double0", []any{1.0, 2.0, 3.0, 4.0, true}, nil, []error{validate.ErrType}, []int{4}},
		{"long long big float", "longLong0", []any{9007199254740994.0, -9007199254740994.0, 1e18, 0.0, 1.0}, []int64{9007199254740994, -9007199254740994, 1e18, 0, 1}, nil, nil},
		{"long long fraction", "longLong0", []any{1.0, 2.0, 3.0, 4.0, 0.5}, nil, []error{validate.ErrType}, []int{4}},
		{"int from hamba ints", "int0", []any{1, int64(2), 3, 4, -5}, []int32{1, 2, 3, 4, -5}, nil, nil},
		{"int any out of range", "int0", []any{1, 2, 3, 4, 1 << 40}, nil, []error{validate.ErrRange}, []int{4}},
		{"float any float32", "float0", []any{float32(1), float32(2), 0.5, float32(4), float32(5)}, []float32{1, 2, 0.5, 4, 5}, nil, nil},
		{"float any too big", "float0", []any{1.0, 2.0, 3.0, -1e39, 5.0}, nil, []error{validate.ErrRange}, []int{3}},
		{"float any int", "float0", []any{1.0, 2.0, 3.0, 4, 5.0}, []float32{1, 2, 3, 4, 5}, nil, nil},
		{"double any NaN Inf", "double0", []any{math.NaN(), math.Inf(1), math.Inf(-1), 0.0, 1.0}, []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, 1}, nil, nil},
		{"too short canonical", "float0", []float32{1, 2, 3, 4}, nil, []error{validate.ErrArrayLength}, []int{-1}},
		{"too long canonical", "float0", []float32{1, 2, 3, 4, 5, 6}, nil, []error{validate.ErrArrayLength}, []int{-1}},
		{"nil slice", "float0", []float32(nil), nil, []error{validate.ErrArrayLength}, []int{-1}},
		{"too short any", "double0", []any{1.0, 2.0}, nil, []error{validate.ErrArrayLength}, []int{-1}},
		{"short and bad elem", "double0", []any{1.0, "x"}, nil, []error{validate.ErrArrayLength, validate.ErrType}, []int{-1, 1}},
		{"empty any", "int0", []any{}, nil, []error{validate.ErrArrayLength}, []int{-1}},
		{"scalar for array", "int0", int32(5), nil, []error{validate.ErrType}, []int{-1}},
		{"strings for array", "int0", []string{"1", "2", "3", "4", "5"}, nil, []error{validate.ErrType}, []int{-1}},
		{"nil for array", "int0", nil, nil, []error{validate.ErrNull}, []int{-1}},
		{"map for array", "int0", map[string]any{"array": []any{}}, nil, []error{validate.ErrType}, []int{-1}},
	}
	v := validate.Compile(arraysTopic())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := v.New()
			rec[c.field] = c.in
			err := v.Validate(rec)
			if c.rules == nil {
				if err != nil {
					t.Fatal(err)
				}
				if !equalSlices(rec[c.field], c.want) {
					t.Fatalf("got %#v, want %#v", rec[c.field], c.want)
				}
				if fmt.Sprintf("%T", c.in) != fmt.Sprintf("%T", c.want) && same(rec[c.field], c.in) {
					t.Fatal("stored the caller's slice")
				}
				return
			}
			fes := wantRules(t, err, c.rules...)
			for i, fe := range fes {
				if fe.Field != c.field || fe.Index != c.index[i] {
					t.Errorf("error %d on %s[%d], want %s[%d]", i, fe.Field, fe.Index, c.field, c.index[i])
				}
			}
		})
	}
}

// equalSlices compares values by type and printed value (NaN equal to
// NaN).
func equalSlices(a, b any) bool {
	return fmt.Sprintf("%T %v", a, a) == fmt.Sprintf("%T %v", b, b)
}

func TestValidate_CallerSliceNotMutated(t *testing.T) {
	v := validate.Compile(arraysTopic())
	in := []any{1.0, 2.0, 3.0, 4.0, 5.0}
	f64 := []float64{0.1, 0.2, 0.3, 0.4, 0.5}
	ints := []int{1, 2, 3, 4, 5}
	rec := v.New()
	rec["double0"] = in
	rec["float0"] = f64
	rec["int0"] = ints
	if err := v.Validate(rec); err != nil {
		t.Fatal(err)
	}
	if in[0] != 1.0 || f64[0] != 0.1 || ints[0] != 1 {
		t.Fatal("caller's slice was changed")
	}
	rec["double0"].([]float64)[0] = 99
	rec["float0"].([]float32)[0] = 99
	rec["int0"].([]int32)[0] = 99
	if in[0] != 1.0 || f64[0] != 0.1 || ints[0] != 1 {
		t.Fatal("converted slice shares memory with the caller's")
	}
	// A canonical slice is kept as it is (not copied).
	canon := []float32{1, 2, 3, 4, 5}
	rec["float0"] = canon
	if err := v.Validate(rec); err != nil {
		t.Fatal(err)
	}
	if !same(rec["float0"], canon) {
		t.Fatal("canonical slice was replaced")
	}
}

func TestValidate_DefaultsFilled(t *testing.T) {
	for _, top := range []*xml.Topic{scalarsTopic(), arraysTopic()} {
		v := validate.Compile(top)
		a, b := map[string]any{}, map[string]any{}
		if err := v.Validate(a); err != nil {
			t.Fatal(err)
		}
		if err := v.Validate(b); err != nil {
			t.Fatal(err)
		}
		checkCanonical(t, top, a)
		want := v.New()
		for _, f := range top.Fields {
			if !equalSlices(a[f.Name], want[f.Name]) {
				t.Errorf("%s: default %#v, want %#v", f.Name, a[f.Name], want[f.Name])
			}
			if f.Count > 1 && same(a[f.Name], b[f.Name]) {
				t.Errorf("%s: two records share the default slice", f.Name)
			}
		}
	}
	// Only the missing fields are filled.
	v := validate.Compile(scalarsTopic())
	rec := map[string]any{"byte0": 7}
	if err := v.Validate(rec); err != nil {
		t.Fatal(err)
	}
	if rec["byte0"] != uint8(7) || rec["short0"] != int16(0) || rec["string0"] != "" {
		t.Fatalf("got %v", rec)
	}
}

func TestValidate_StrictMissing(t *testing.T) {
	v := validate.Compile(scalarsTopic(), validate.Strict())
	rec := validate.Compile(scalarsTopic()).New()
	if err := v.Validate(rec); err != nil {
		t.Fatal(err)
	}
	delete(rec, "short0")
	delete(rec, "double0")
	fes := wantRules(t, v.Validate(rec), validate.ErrMissingField, validate.ErrMissingField)
	if fes[0].Field != "short0" || fes[1].Field != "double0" {
		t.Errorf("errors on %s, %s", fes[0].Field, fes[1].Field)
	}
	if _, ok := rec["short0"]; ok {
		t.Error("strict Validate filled a missing field")
	}
}

func TestValidate_Nullable(t *testing.T) {
	v := validate.Compile(cameraTopic())
	rec := map[string]any{"rebId": 3, "name": nil}
	if err := v.Validate(rec); err != nil {
		t.Fatal(err)
	}
	checkCanonical(t, cameraTopic(), rec)
	for _, k := range []string{"temp", "label", "volts", "name"} {
		if rec[k] != nil {
			t.Errorf("%s = %#v, want nil", k, rec[k])
		}
	}
	rec = map[string]any{"rebId": int32(3), "name": "reb0", "temp": 21.5, "volts": []any{1.0, 2.0, 3.0}, "label": nil}
	if err := v.Validate(rec); err != nil {
		t.Fatal(err)
	}
	if rec["temp"] != float32(21.5) || !equalSlices(rec["volts"], []float64{1, 2, 3}) {
		t.Fatalf("got %v", rec)
	}
	rec["rebId"] = nil
	rec["volts"] = []float64{1}
	rec["private_seqNum"] = nil
	fes := wantRules(t, v.Validate(rec), validate.ErrArrayLength, validate.ErrNull, validate.ErrNull)
	if fes[0].Field != "volts" || fes[1].Field != "rebId" || fes[2].Field != "private_seqNum" {
		t.Errorf("errors on %s, %s, %s", fes[0].Field, fes[1].Field, fes[2].Field)
	}
}

func TestValidate_NoDefault(t *testing.T) {
	v := validate.Compile(cameraTopic())
	rec := map[string]any{}
	fes := wantRules(t, v.Validate(rec), validate.ErrMissingField, validate.ErrMissingField)
	if fes[0].Field != "rebId" || fes[1].Field != "name" {
		t.Errorf("errors on %s, %s", fes[0].Field, fes[1].Field)
	}
	if len(rec) != 0 {
		t.Errorf("record changed on error: %v", rec)
	}
	// New still gives a complete record, with zero values.
	rec = v.New()
	if rec["rebId"] != int32(0) || rec["name"] != nil {
		t.Errorf("New: rebId %#v, name %#v", rec["rebId"], rec["name"])
	}
	if err := v.Validate(rec); err != nil {
		t.Fatal(err)
	}
}

func TestValidate_UnknownField(t *testing.T) {
	v := validate.Compile(scalarsTopic())
	rec := v.New()
	rec["zzz"] = 1
	rec["aaa"] = "x"
	fes := wantRules(t, v.Validate(rec), validate.ErrUnknownField, validate.ErrUnknownField)
	if fes[0].Field != "aaa" || fes[1].Field != "zzz" || fes[1].Value != 1 {
		t.Errorf("errors %v", fes)
	}
	// Same number of keys as fields, but one is unknown and one missing.
	rec = v.New()
	delete(rec, "byte0")
	rec["byte_0"] = 1
	fes = wantRules(t, v.Validate(rec), validate.ErrUnknownField)
	if fes[0].Field != "byte_0" {
		t.Errorf("error on %s", fes[0].Field)
	}
	if _, ok := rec["byte0"]; ok {
		t.Error("record changed on error")
	}
}

func TestValidate_MultipleErrors(t *testing.T) {
	v := validate.Compile(scalarsTopic())
	rec := v.New()
	rec["byte0"] = 300
	rec["short0"] = "x"
	rec["float0"] = 1e40
	rec["string0"] = strings.Repeat("s", 30)
	rec["extra"] = true
	rec["int0"] = 12 // valid, converted only if everything passes
	delete(rec, "double0")
	err := v.Validate(rec)
	fes := wantRules(t, err, validate.ErrRange, validate.ErrType, validate.ErrRange, validate.ErrStringLength, validate.ErrUnknownField)
	wantMsgs := []string{
		"validate: Example.command_setScalars: field byte0: value 300 out of range for byte (0..255)",
		`validate: Example.command_setScalars: field short0: value "x" (string) has wrong type for short field (want int16)`,
		"validate: Example.command_setScalars: field float0: value 1e+40 out of range for float (±3.4028234663852886e+38)",
		"validate: Example.command_setScalars: field string0: string length 30 bytes exceeds bound 20",
		"validate: Example.command_setScalars: field extra: unknown field (value true (bool))",
	}
	for i, fe := range fes {
		if fe.Error() != wantMsgs[i] {
			t.Errorf("message %d:\n got %s\nwant %s", i, fe.Error(), wantMsgs[i])
		}
		if fe.Component != "Example" || fe.Topic != "command_setScalars" || fe.Index != -1 {
			t.Errorf("error %d: %+v", i, fe)
		}
	}
	if !strings.Contains(err.Error(), wantMsgs[0]+"\n"+wantMsgs[1]) {
		t.Errorf("joined message:\n%s", err)
	}
	var fe *validate.FieldError
	if !errors.As(err, &fe) || fe.Field != "byte0" || fe.Value != 300 || fe.Type != xml.Byte || fe.Rule != validate.ErrRange {
		t.Errorf("errors.As: %+v", fe)
	}
	// Nothing was written: not the valid conversion, not the default.
	if rec["int0"] != 12 {
		t.Errorf("int0 = %#v after a failed Validate", rec["int0"])
	}
	if _, ok := rec["double0"]; ok {
		t.Error("double0 filled after a failed Validate")
	}
}

func TestValidate_ElementErrorMessage(t *testing.T) {
	v := validate.Compile(arraysTopic())
	rec := v.New()
	rec["byte0"] = []any{1.0, 2.0, 300.0, 4.5, "x"}
	fes := wantRules(t, v.Validate(rec), validate.ErrRange, validate.ErrType, validate.ErrType)
	want := []string{
		"validate: Example.command_setArrays: field byte0[2]: value 300 out of range for byte (0..255)",
		"validate: Example.command_setArrays: field byte0[3]: value 4.5 is not an integer, want byte (uint8)",
		`validate: Example.command_setArrays: field byte0[4]: value "x" (string) has wrong type for byte field (want uint8)`,
	}
	for i, fe := range fes {
		if fe.Error() != want[i] {
			t.Errorf("got  %s\nwant %s", fe, want[i])
		}
	}
	rec = v.New()
	rec["float0"] = []float32{1}
	rec["int0"] = "abc"
	fes = wantRules(t, v.Validate(rec), validate.ErrType, validate.ErrArrayLength)
	want = []string{
		`validate: Example.command_setArrays: field int0: value "abc" (string) has wrong type for int[5] field (want []int32)`,
		"validate: Example.command_setArrays: field float0: array length 1, want 5",
	}
	for i, fe := range fes {
		if fe.Error() != want[i] {
			t.Errorf("got  %s\nwant %s", fe, want[i])
		}
	}
}

func TestValidate_NilRecord(t *testing.T) {
	v := validate.Compile(scalarsTopic())
	err := v.Validate(nil)
	wantRules(t, err, validate.ErrNull)
	if err.Error() != "validate: Example.command_setScalars: nil record" {
		t.Errorf("message %q", err)
	}
	if err := validate.Compile(&xml.Topic{Component: "C", SALName: "t"}).Validate(nil); err != nil {
		t.Errorf("empty topic, nil record: %v", err)
	}
}

func TestValidate_InvalidType(t *testing.T) {
	top := &xml.Topic{Component: "C", SALName: "t", Fields: []*xml.Field{{Name: "x", Type: xml.Type(42), Count: 1}}}
	v := validate.Compile(top)
	wantRules(t, v.Validate(map[string]any{"x": 1}), validate.ErrType)
	wantRules(t, v.Validate(map[string]any{}), validate.ErrType)
}

func TestValidate_DuplicateFieldFirstWins(t *testing.T) {
	top := &xml.Topic{Component: "C", SALName: "t", Fields: []*xml.Field{
		{Name: "x", Type: xml.Byte, Count: 1},
		{Name: "x", Type: xml.String, Count: 1},
	}}
	rec := map[string]any{"x": 3}
	if err := validate.Compile(top).Validate(rec); err != nil || rec["x"] != uint8(3) {
		t.Fatalf("%v, %#v", err, rec["x"])
	}
}

func TestValidate_JSONEndToEnd(t *testing.T) {
	const text = `{
		"boolean0": true, "byte0": 255, "short0": -32768, "int0": 2147483647, "long0": -2147483648,
		"longLong0": 9007199254740992, "unsignedShort0": 65535, "unsignedInt0": 4294967295,
		"float0": 0.1, "double0": 1e300, "string0": "héllo",
		"private_sndStamp": 1700000000.25, "private_seqNum": 12, "private_identity": "user@host"
	}`
	top := scalarsTopic()
	v := validate.Compile(top)
	for _, useNumber := range []bool{false, true} {
		dec := json.NewDecoder(strings.NewReader(text))
		if useNumber {
			dec.UseNumber()
		}
		var rec map[string]any
		if err := dec.Decode(&rec); err != nil {
			t.Fatal(err)
		}
		if err := v.Validate(rec); err != nil {
			t.Fatalf("UseNumber %v: %v", useNumber, err)
		}
		checkCanonical(t, top, rec)
		want := map[string]any{
			"boolean0": true, "byte0": uint8(255), "short0": int16(-32768), "int0": int32(2147483647),
			"long0": int32(-2147483648), "longLong0": int64(9007199254740992), "unsignedShort0": uint16(65535),
			"unsignedInt0": uint32(4294967295), "float0": float32(0.1), "double0": 1e300, "string0": "héllo",
			"private_sndStamp": 1700000000.25, "private_seqNum": int32(12), "private_identity": "user@host",
			"private_origin": int32(0), "private_revCode": "",
		}
		for k, w := range want {
			if rec[k] != w {
				t.Errorf("UseNumber %v: %s = %#v, want %#v", useNumber, k, rec[k], w)
			}
		}
	}

	const arrays = `{"boolean0": [true, false, true, false, true], "byte0": [0, 1, 2, 3, 255],
		"short0": [1, 2, 3, 4, 5], "int0": [1, 2, 3, 4, 5], "long0": [1, 2, 3, 4, 5],
		"longLong0": [1, 2, 3, 4, 5], "unsignedShort0": [1, 2, 3, 4, 5], "unsignedInt0": [1, 2, 3, 4, 4294967295],
		"float0": [0.5, 1, 2, 3, 4], "double0": [0.5, 1, 2, 3, 4]}`
	top = arraysTopic()
	v = validate.Compile(top)
	var rec map[string]any
	if err := json.Unmarshal([]byte(arrays), &rec); err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(rec); err != nil {
		t.Fatal(err)
	}
	checkCanonical(t, top, rec)
	if !equalSlices(rec["unsignedInt0"], []uint32{1, 2, 3, 4, 4294967295}) {
		t.Errorf("unsignedInt0 = %v", rec["unsignedInt0"])
	}
	// And the bad JSON record: every error at once.
	const bad = `{"byte0": [0, 1, 2, 3, 256], "int0": [1, 2, 3], "float0": "x", "nope": null}`
	rec = nil
	if err := json.Unmarshal([]byte(bad), &rec); err != nil {
		t.Fatal(err)
	}
	wantRules(t, v.Validate(rec), validate.ErrRange, validate.ErrArrayLength, validate.ErrType, validate.ErrUnknownField)
}

func TestValidate_ZeroAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: allocation counting")
	}
	for _, top := range []*xml.Topic{forceActuatorTopic(), scalarsTopic(), arraysTopic(), cameraTopic()} {
		v := validate.Compile(top)
		rec := v.New()
		if top.FromAvro {
			rec["name"] = "x"
		}
		if err := v.Validate(rec); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(100, func() {
			if err := v.Validate(rec); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s: Validate allocates %v times per call on a canonical record", top, n)
		}
		if n := testing.AllocsPerRun(100, func() {
			if r := v.Check(rec); !r.OK() {
				t.Fatal(r)
			}
		}); n != 0 {
			t.Errorf("%s: Check allocates %v times per call on a canonical record", top, n)
		}
	}
}

func TestFor_Cache(t *testing.T) {
	top := scalarsTopic()
	a := validate.For(top)
	if validate.For(top) != a {
		t.Fatal("For compiled twice")
	}
	s := validate.For(top, validate.Strict())
	if s == a || validate.For(top, validate.Strict()) != s {
		t.Fatal("For with Strict")
	}
	if err := s.Validate(map[string]any{}); !errors.Is(err, validate.ErrMissingField) {
		t.Fatalf("strict cached validator: %v", err)
	}
	if validate.For(scalarsTopic()) == a {
		t.Fatal("two topics share a validator")
	}
	var wg sync.WaitGroup
	other := arraysTopic()
	got := make([]*validate.Validator, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = validate.For(other)
			rec := got[i].New()
			rec["double0"] = []any{1.0, 2.0, 3.0, 4.0, 5.0}
			if err := got[i].Validate(rec); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, g := range got {
		if g != got[0] {
			t.Fatal("concurrent For returned different validators")
		}
	}
}

func TestFieldErrors(t *testing.T) {
	if validate.FieldErrors(nil) != nil {
		t.Error("FieldErrors(nil) != nil")
	}
	fe := &validate.FieldError{Component: "C", Topic: "t", Field: "f", Index: -1, Rule: validate.ErrNull}
	if got := validate.FieldErrors(errors.Join(errors.New("x"), fe)); len(got) != 1 || got[0] != fe {
		t.Errorf("got %v", got)
	}
	if fe.Error() != "validate: C.t: field f: nil value" {
		t.Errorf("hand-built message %q", fe.Error())
	}
	fe = &validate.FieldError{Component: "C", Topic: "t", Field: "a b", Index: 2, Rule: validate.ErrRange}
	if fe.Error() != `validate: C.t: field "a b"[2]: value out of range` {
		t.Errorf("hand-built message %q", fe.Error())
	}
}

func TestRandom_IsValid(t *testing.T) {
	for _, top := range []*xml.Topic{scalarsTopic(), arraysTopic(), cameraTopic(), forceActuatorTopic()} {
		v := validate.Compile(top)
		rng := rand.New(rand.NewPCG(1, 2))
		for range 50 {
			rec := v.Random(rng)
			if err := v.Validate(rec); err != nil {
				t.Fatalf("%s: %v", top.SALName, err)
			}
			checkCanonical(t, top, rec)
		}
	}
}

// TestValidator_Field: one value is checked by Validate's rules and
// returned in the canonical type; a wrong type, a range and an unknown
// name are errors matching their sentinels.
func TestValidator_Field(t *testing.T) {
	v := validate.Compile(scalarsTopic())
	if got, err := v.Field("short0", 7); err != nil || got != int16(7) {
		t.Errorf("short0 7: %v %v, want int16(7)", got, err)
	}
	if got, err := v.Field("double0", 2.5); err != nil || got != 2.5 {
		t.Errorf("double0 2.5: %v %v", got, err)
	}
	for _, c := range []struct {
		name string
		val  any
		rule error
	}{{"short0", "x", validate.ErrType}, {"short0", 1 << 20, validate.ErrRange}, {"nope", 1, validate.ErrUnknownField}, {"string0", 3, validate.ErrType}} {
		if _, err := v.Field(c.name, c.val); !errors.Is(err, c.rule) {
			t.Errorf("%s %v: %v, want %v", c.name, c.val, err, c.rule)
		}
	}
}
