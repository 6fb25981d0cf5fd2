package validate_test

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"unicode/utf8"

	"github.com/lsst-sal/salgo/validate"
	"github.com/lsst-sal/salgo/xml"
)

// allTypes lists the eleven SAL types with a field-name stem.
var allTypes = []struct {
	stem string
	typ  xml.Type
}{
	{"boolean", xml.Boolean},
	{"byte", xml.Byte},
	{"short", xml.Short},
	{"int", xml.Int},
	{"long", xml.Long},
	{"longLong", xml.LongLong},
	{"unsignedShort", xml.UnsignedShort},
	{"unsignedInt", xml.UnsignedInt},
	{"float", xml.Float},
	{"double", xml.Double},
	{"string", xml.String},
}

// privateFields returns the private fields of a non-indexed topic.
func privateFields() []*xml.Field {
	return []*xml.Field{
		{Name: "private_sndStamp", Type: xml.Double, Count: 1, Private: true},
		{Name: "private_rcvStamp", Type: xml.Double, Count: 1, Private: true},
		{Name: "private_efdStamp", Type: xml.Double, Count: 1, Private: true},
		{Name: "private_kafkaStamp", Type: xml.Double, Count: 1, Private: true},
		{Name: "private_seqNum", Type: xml.Long, Count: 1, Private: true},
		{Name: "private_revCode", Type: xml.String, Count: 1, Private: true},
		{Name: "private_identity", Type: xml.String, Count: 1, Private: true},
		{Name: "private_origin", Type: xml.Long, Count: 1, Private: true},
	}
}

// scalarsTopic is Example.command_setScalars: one scalar of every SAL type
// (boolean0, byte0, ..., string0 bounded to 20 bytes), after the private
// fields.
func scalarsTopic() *xml.Topic {
	t := &xml.Topic{Component: "Example", SALName: "command_setScalars", Kind: xml.Command, Fields: privateFields()}
	for _, a := range allTypes {
		f := &xml.Field{Name: a.stem + "0", Type: a.typ, Count: 1}
		if a.typ == xml.String {
			f.Size = 20
		}
		t.Fields = append(t.Fields, f)
	}
	return t
}

// arraysTopic is Example.command_setArrays: an array of 5 of every SAL type
// but string (boolean0, byte0, ...).
func arraysTopic() *xml.Topic {
	t := &xml.Topic{Component: "Example", SALName: "command_setArrays", Kind: xml.Command}
	for _, a := range allTypes {
		if a.typ == xml.String {
			continue
		}
		t.Fields = append(t.Fields, &xml.Field{Name: a.stem + "0", Type: a.typ, Count: 5})
	}
	return t
}

// cameraTopic is a camera .avsc topic: nullable and no-default fields, with
// the private fields at the end.
func cameraTopic() *xml.Topic {
	t := &xml.Topic{Component: "MTCamera", SALName: "focal_plane_Reb", Kind: xml.Telemetry, FromAvro: true}
	t.Fields = []*xml.Field{
		{Name: "temp", Type: xml.Float, Count: 1, Nullable: true},
		{Name: "label", Type: xml.String, Count: 1, Nullable: true},
		{Name: "volts", Type: xml.Double, Count: 3, Nullable: true},
		{Name: "rebId", Type: xml.Int, Count: 1, NoDefault: true},
		{Name: "name", Type: xml.String, Count: 1, NoDefault: true, Nullable: true},
	}
	t.Fields = append(t.Fields, privateFields()...)
	return t
}

// forceActuatorTopic has the shape of MTM1M3 forceActuatorData: 23 fields,
// 7 float arrays of 156/112/156/112/12/100/156 and 8 float or double
// scalars after the private fields: 811 floats.
func forceActuatorTopic() *xml.Topic {
	t := &xml.Topic{Component: "MTM1M3", SALName: "forceActuatorData", Kind: xml.Telemetry, Fields: privateFields()}
	t.Fields = append(t.Fields, &xml.Field{Name: "timestamp", Type: xml.Double, Count: 1})
	for _, a := range []struct {
		name  string
		count int
	}{
		{"primaryCylinderForce", 156}, {"secondaryCylinderForce", 112},
		{"primaryCylinderSetpoint", 156}, {"secondaryCylinderSetpoint", 112},
		{"xForce", 12}, {"yForce", 100}, {"zForce", 156},
	} {
		t.Fields = append(t.Fields, &xml.Field{Name: a.name, Type: xml.Float, Count: a.count})
	}
	for _, n := range []string{"fx", "fy", "fz", "mx", "my", "mz", "forceMagnitude"} {
		t.Fields = append(t.Fields, &xml.Field{Name: n, Type: xml.Float, Count: 1})
	}
	return t
}

// forceActuatorRecord returns a complete canonical record of
// forceActuatorTopic with non-zero values.
func forceActuatorRecord(t *xml.Topic) map[string]any {
	rec := make(map[string]any, len(t.Fields))
	for i, f := range t.Fields {
		switch {
		case f.Type == xml.String:
			rec[f.Name] = "MTM1M3"
		case f.Type == xml.Long:
			rec[f.Name] = int32(i)
		case f.Type == xml.Double:
			rec[f.Name] = 1.5e9 + float64(i)
		case f.Count > 1:
			s := make([]float32, f.Count)
			for j := range s {
				s[j] = float32(j) * 0.25
			}
			rec[f.Name] = s
		default:
			rec[f.Name] = float32(i) + 0.5
		}
	}
	return rec
}

// isCanonical is the test oracle of the canonical representation, written
// independently of the package.
func isCanonical(f *xml.Field, v any) bool {
	if v == nil {
		return f.Nullable
	}
	if f.Count > 1 && f.Type != xml.String {
		n := -1
		switch f.Type {
		case xml.Boolean:
			if s, ok := v.([]bool); ok {
				n = len(s)
			}
		case xml.Byte:
			if s, ok := v.([]uint8); ok {
				n = len(s)
			}
		case xml.Short:
			if s, ok := v.([]int16); ok {
				n = len(s)
			}
		case xml.Int, xml.Long:
			if s, ok := v.([]int32); ok {
				n = len(s)
			}
		case xml.LongLong:
			if s, ok := v.([]int64); ok {
				n = len(s)
			}
		case xml.UnsignedShort:
			if s, ok := v.([]uint16); ok {
				n = len(s)
			}
		case xml.UnsignedInt:
			if s, ok := v.([]uint32); ok {
				n = len(s)
			}
		case xml.Float:
			if s, ok := v.([]float32); ok {
				n = len(s)
			}
		case xml.Double:
			if s, ok := v.([]float64); ok {
				n = len(s)
			}
		}
		return n == f.Count
	}
	switch f.Type {
	case xml.Boolean:
		_, ok := v.(bool)
		return ok
	case xml.Byte:
		_, ok := v.(uint8)
		return ok
	case xml.Short:
		_, ok := v.(int16)
		return ok
	case xml.Int, xml.Long:
		_, ok := v.(int32)
		return ok
	case xml.LongLong:
		_, ok := v.(int64)
		return ok
	case xml.UnsignedShort:
		_, ok := v.(uint16)
		return ok
	case xml.UnsignedInt:
		_, ok := v.(uint32)
		return ok
	case xml.Float:
		_, ok := v.(float32)
		return ok
	case xml.Double:
		_, ok := v.(float64)
		return ok
	case xml.String:
		s, ok := v.(string)
		return ok && utf8.ValidString(s) && (f.MaxLen() == 0 || len(s) <= f.MaxLen())
	}
	return false
}

// checkCanonical fails the test unless rec holds exactly the fields of t,
// each canonical.
func checkCanonical(t *testing.T, top *xml.Topic, rec map[string]any) {
	t.Helper()
	if len(rec) != len(top.Fields) {
		t.Errorf("record has %d keys, want %d", len(rec), len(top.Fields))
	}
	for _, f := range top.Fields {
		v, ok := rec[f.Name]
		if !ok {
			t.Errorf("field %s missing", f.Name)
			continue
		}
		if !isCanonical(f, v) {
			t.Errorf("field %s: %#v (%T) is not canonical", f.Name, v, v)
		}
	}
}

// same reports whether a and b are identical values: equal scalars (NaN
// equal to itself) or the same slice.
func same(a, b any) bool {
	switch x := a.(type) {
	case []bool:
		y, ok := b.([]bool)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case []uint8:
		y, ok := b.([]uint8)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case []int16:
		y, ok := b.([]int16)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case []int32:
		y, ok := b.([]int32)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case []int64:
		y, ok := b.([]int64)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case []uint16:
		y, ok := b.([]uint16)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case []uint32:
		y, ok := b.([]uint32)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case []float32:
		y, ok := b.([]float32)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case []float64:
		y, ok := b.([]float64)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case float32:
		y, ok := b.(float32)
		return ok && (x == y || x != x && y != y)
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || math.IsNaN(x) && math.IsNaN(y))
	}
	return equalAny(a, b)
}

// equalAny is a == b, or identity (%p) for values that cannot be compared.
func equalAny(a, b any) (eq bool) {
	defer func() {
		if recover() != nil {
			eq = fmt.Sprintf("%T %p", a, a) == fmt.Sprintf("%T %p", b, b)
		}
	}()
	return a == b
}

// copyRecord returns a shallow copy of rec.
func copyRecord(rec map[string]any) map[string]any {
	out := make(map[string]any, len(rec))
	for k, v := range rec {
		out[k] = v
	}
	return out
}

// sameRecord reports whether a and b have the same keys and identical values.
func sameRecord(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, va := range a {
		vb, ok := b[k]
		if !ok || !same(va, vb) {
			return false
		}
	}
	return true
}

// wantRules fails the test unless err is made of exactly one FieldError per
// wanted rule, in order, each matched with errors.Is.
func wantRules(t *testing.T, err error, rules ...error) []*validate.FieldError {
	t.Helper()
	fes := validate.FieldErrors(err)
	if len(fes) != len(rules) {
		t.Fatalf("got %d field errors, want %d: %v", len(fes), len(rules), err)
	}
	for i, r := range rules {
		if !errors.Is(fes[i], r) {
			t.Errorf("error %d: %v is not %v", i, fes[i], r)
		}
		if !errors.Is(err, r) {
			t.Errorf("joined error is not %v", r)
		}
	}
	return fes
}
