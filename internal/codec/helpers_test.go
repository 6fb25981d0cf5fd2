package codec_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/xml"
)

// field builds a field; count 1 is a scalar.
func field(name string, t xml.Type, count int) *xml.Field {
	return &xml.Field{Name: name, Type: t, Count: count}
}

func nullable(name string, t xml.Type, count int) *xml.Field {
	f := field(name, t, count)
	f.Nullable = true
	return f
}

func privateFields() []*xml.Field {
	fs := []*xml.Field{
		field("private_sndStamp", xml.Double, 1),
		field("private_rcvStamp", xml.Double, 1),
		field("private_efdStamp", xml.Double, 1),
		field("private_kafkaStamp", xml.Double, 1),
		field("private_seqNum", xml.Long, 1),
		field("private_revCode", xml.String, 1),
		field("private_identity", xml.String, 1),
		field("private_origin", xml.Long, 1),
	}
	for _, f := range fs {
		f.Private = true
	}
	return fs
}

func topic(comp, name string, fields ...*xml.Field) *xml.Topic {
	return &xml.Topic{Component: comp, SALName: name, Kind: xml.Telemetry,
		Namespace: "lsst.sal." + comp, Fields: fields}
}

// forceActuatorData is MTM1M3 forceActuatorData: 23 fields.
func forceActuatorData() *xml.Topic {
	fs := privateFields()
	fs = append(fs,
		field("timestamp", xml.Double, 1),
		field("primaryCylinderForce", xml.Float, 156),
		field("secondaryCylinderForce", xml.Float, 112),
		field("primaryCylinderFollowingError", xml.Float, 156),
		field("secondaryCylinderFollowingError", xml.Float, 112),
		field("xForce", xml.Float, 12),
		field("yForce", xml.Float, 100),
		field("zForce", xml.Float, 156),
	)
	for _, n := range []string{"fx", "fy", "fz", "mx", "my", "mz", "forceMagnitude"} {
		fs = append(fs, field(n, xml.Float, 1))
	}
	return topic("MTM1M3", "forceActuatorData", fs...)
}

// allTypes has every SAL type as a scalar, as an array and as a nullable
// scalar, plus nullable arrays.
func allTypes() *xml.Topic {
	var fs []*xml.Field
	for t := xml.Boolean; t <= xml.String; t++ {
		n := strings.ReplaceAll(t.String(), " ", "_")
		fs = append(fs, field("s_"+n, t, 1))
		if t != xml.String {
			fs = append(fs, field("a_"+n, t, 3))
		}
		fs = append(fs, nullable("n_"+n, t, 1))
	}
	fs = append(fs, nullable("na_float", xml.Float, 4), nullable("na_long_long", xml.LongLong, 2))
	return topic("Test", "allTypes", fs...)
}

// bigDoubles has 14,000 doubles in one array, past hamba's default block
// length and any ts_xml Count, and a float array of the maximum Count.
func bigDoubles() *xml.Topic {
	fs := privateFields()
	fs = append(fs, field("values", xml.Double, 14000), field("floats", xml.Float, 3024))
	return topic("Test", "bigDoubles", fs...)
}

// schemaText writes the Avro schema of t the way ts_xml does (a test
// helper independent of xml.Topic.AvroSchema).
func schemaText(t *xml.Topic) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"type": "record", "name": %q, "namespace": %q, "fields": [`, t.SALName, "lsst.sal."+t.Component)
	for i, f := range t.Fields {
		if i > 0 {
			b.WriteString(", ")
		}
		typ, _ := json.Marshal(f.Type.Avro())
		def := scalarDefault(f.Type)
		if f.Count > 1 {
			typ = []byte(`{"type": "array", "items": ` + string(typ) + `}`)
			def = "[" + strings.TrimSuffix(strings.Repeat(def+", ", f.Count), ", ") + "]"
		}
		if f.Nullable {
			typ = []byte(`["null", ` + string(typ) + `]`)
			def = "null"
		}
		fmt.Fprintf(&b, `{"name": %q, "type": %s, "default": %s, "description": "", "units": "unitless"}`, f.Name, typ, def)
	}
	b.WriteString(`], "description": ""}`)
	return b.String()
}

func scalarDefault(t xml.Type) string {
	switch t {
	case xml.Boolean:
		return "false"
	case xml.Float, xml.Double:
		return "0.0"
	case xml.String:
		return `""`
	}
	return "0"
}

// randomRecord fills every field of t with a random canonical value;
// nullable fields are nil with probability 1/3.
func randomRecord(r *rand.Rand, t *xml.Topic) map[string]any {
	rec := make(map[string]any, len(t.Fields))
	for _, f := range t.Fields {
		if f.Nullable && r.IntN(3) == 0 {
			rec[f.Name] = nil
			continue
		}
		if f.Count > 1 {
			rec[f.Name] = randomArray(r, f.Type, f.Count)
		} else {
			rec[f.Name] = randomScalar(r, f.Type)
		}
	}
	return rec
}

func randomScalar(r *rand.Rand, t xml.Type) any {
	// Mix extremes in with random values.
	edge := r.IntN(4) == 0
	switch t {
	case xml.Boolean:
		return r.IntN(2) == 1
	case xml.Byte:
		if edge {
			return uint8(255)
		}
		return uint8(r.Uint32())
	case xml.Short:
		if edge {
			return int16(-32768)
		}
		return int16(r.Uint32())
	case xml.Int, xml.Long:
		if edge {
			return int32(-1 << 31)
		}
		return int32(r.Uint32())
	case xml.LongLong:
		if edge {
			return int64(-1 << 63)
		}
		return int64(r.Uint64())
	case xml.UnsignedShort:
		if edge {
			return uint16(65535)
		}
		return uint16(r.Uint32())
	case xml.UnsignedInt:
		if edge {
			return uint32(1<<32 - 1)
		}
		return uint32(r.Uint32())
	case xml.Float:
		return float32(r.NormFloat64()*50 + 300)
	case xml.Double:
		return r.NormFloat64() * 1e6
	case xml.String:
		const letters = "abcdefghijklmnopqrstuvwxyzé€ "
		rs := []rune(letters)
		n := r.IntN(30)
		out := make([]rune, n)
		for i := range out {
			out[i] = rs[r.IntN(len(rs))]
		}
		return string(out)
	}
	panic("bad type")
}

func randomArray(r *rand.Rand, t xml.Type, n int) any {
	switch t {
	case xml.Boolean:
		return fill[bool](r, t, n)
	case xml.Byte:
		return fill[uint8](r, t, n)
	case xml.Short:
		return fill[int16](r, t, n)
	case xml.Int, xml.Long:
		return fill[int32](r, t, n)
	case xml.LongLong:
		return fill[int64](r, t, n)
	case xml.UnsignedShort:
		return fill[uint16](r, t, n)
	case xml.UnsignedInt:
		return fill[uint32](r, t, n)
	case xml.Float:
		return fill[float32](r, t, n)
	case xml.Double:
		return fill[float64](r, t, n)
	}
	return fill[string](r, t, n)
}

func fill[T any](r *rand.Rand, t xml.Type, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = randomScalar(r, t).(T)
	}
	return out
}

// fromHamba converts hamba's generic map to canonical values.
func fromHamba(tb testing.TB, t *xml.Topic, m map[string]any) map[string]any {
	tb.Helper()
	out := make(map[string]any, len(m))
	for _, f := range t.Fields {
		v, ok := m[f.Name]
		if !ok {
			tb.Fatalf("hamba map lacks %s", f.Name)
		}
		if f.Nullable {
			if v == nil {
				out[f.Name] = nil
				continue
			}
			// hamba gives either the bare value or {"type": value}.
			if u, ok := v.(map[string]any); ok {
				if len(u) != 1 {
					tb.Fatalf("%s: hamba union value %#v", f.Name, v)
				}
				for _, x := range u {
					v = x
				}
			}
		}
		if f.Count > 1 {
			items, ok := v.([]any)
			if !ok {
				tb.Fatalf("%s: hamba array is %T", f.Name, v)
			}
			out[f.Name] = hambaArray(tb, f, items)
		} else {
			out[f.Name] = hambaScalar(tb, f, v)
		}
	}
	return out
}

func hambaArray(tb testing.TB, f *xml.Field, items []any) any {
	switch f.Type {
	case xml.Boolean:
		return conv[bool](tb, f, items)
	case xml.Byte:
		return conv[uint8](tb, f, items)
	case xml.Short:
		return conv[int16](tb, f, items)
	case xml.Int, xml.Long:
		return conv[int32](tb, f, items)
	case xml.LongLong:
		return conv[int64](tb, f, items)
	case xml.UnsignedShort:
		return conv[uint16](tb, f, items)
	case xml.UnsignedInt:
		return conv[uint32](tb, f, items)
	case xml.Float:
		return conv[float32](tb, f, items)
	case xml.Double:
		return conv[float64](tb, f, items)
	}
	return conv[string](tb, f, items)
}

func conv[T any](tb testing.TB, f *xml.Field, items []any) []T {
	out := make([]T, len(items))
	for i, x := range items {
		out[i] = hambaScalar(tb, f, x).(T)
	}
	return out
}

func hambaScalar(tb testing.TB, f *xml.Field, v any) any {
	tb.Helper()
	switch x := v.(type) {
	case int: // Avro int
		switch f.Type {
		case xml.Byte:
			return uint8(x)
		case xml.Short:
			return int16(x)
		case xml.Int, xml.Long:
			return int32(x)
		case xml.UnsignedShort:
			return uint16(x)
		}
	case int64: // Avro long
		switch f.Type {
		case xml.LongLong:
			return x
		case xml.UnsignedInt:
			return uint32(x)
		}
	case bool, float32, float64, string:
		return x
	}
	tb.Fatalf("%s: unexpected hamba value %T for %v", f.Name, v, f.Type)
	return nil
}
