package codec

import (
	"fmt"
	"math"
	"reflect"

	"github.com/hamba/avro/v2"
)

// Generic is the reference codec: hamba/avro's generic map encoding of one
// schema. It exists to cross-check and benchmark Codec (this package is the
// only importer of hamba/avro); the SDK itself should not use it.
//
// Its hamba configuration writes every array as one block of positive
// count (BlockLength math.MaxInt32, DisableBlockSizeHeader), so Marshal
// produces the same bytes as Codec.Append and fastavro. hamba's defaults
// (blocks of 100 items, each with a negative count and a byte size) are
// valid Avro but not byte-identical.
type Generic struct {
	schema avro.Schema
	api    avro.API
	unions []unionField
}

type unionField struct {
	name  string
	union *avro.UnionSchema
}

// NewGeneric parses a record schema text with hamba into a private schema
// cache.
func NewGeneric(schema string) (*Generic, error) {
	s, err := parseRecord(schema)
	if err != nil {
		return nil, err
	}
	g := &Generic{
		schema: s,
		api: avro.Config{
			BlockLength:            math.MaxInt32,
			DisableBlockSizeHeader: true,
		}.Freeze(),
	}
	for _, f := range s.Fields() {
		if u, ok := deref(f.Type()).(*avro.UnionSchema); ok {
			g.unions = append(g.unions, unionField{name: f.Name(), union: u})
		}
	}
	return g, nil
}

// CheckSchema parses a schema text with hamba (private cache, name
// validation on) and checks that it is a record.
func CheckSchema(text string) error {
	_, err := parseRecord(text)
	return err
}

func parseRecord(text string) (*avro.RecordSchema, error) {
	s, err := avro.ParseWithCache(text, "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("codec: parse schema: %w", err)
	}
	rec, ok := deref(s).(*avro.RecordSchema)
	if !ok {
		return nil, fmt.Errorf("codec: schema is a %s, not a record", s.Type())
	}
	return rec, nil
}

// Marshal encodes rec with hamba's generic map encoder. rec holds canonical
// values; hamba takes them as they are, except that values of union
// fields are wrapped in hamba's {"type": value} form (nil stays null; a
// map[string]any is taken to be in that form already). Other Avro types
// (records, enums, maps...) must be given in hamba's generic form.
func (g *Generic) Marshal(rec map[string]any) ([]byte, error) {
	if len(g.unions) > 0 {
		cp := make(map[string]any, len(rec))
		for k, v := range rec {
			cp[k] = v
		}
		for _, u := range g.unions {
			v, ok := rec[u.name]
			if !ok {
				continue
			}
			w, err := wrapUnion(u.union, v)
			if err != nil {
				return nil, fmt.Errorf("codec: field %s: %w", u.name, err)
			}
			cp[u.name] = w
		}
		rec = cp
	}
	return g.api.Marshal(g.schema, rec)
}

// Unmarshal decodes b with hamba's generic decoder and returns hamba's
// native map: int for Avro int, int64 for long, float32, float64, string,
// bool, []any for arrays; for a union nil, or the bare value for a
// ["null", T] union, else map[string]any{"type": value}.
func (g *Generic) Unmarshal(b []byte) (map[string]any, error) {
	var m map[string]any
	if err := g.api.Unmarshal(g.schema, b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// StructType returns a Go struct type that hamba's struct decoder can
// decode the schema's records into (for the benchmarks' baseline): a
// field per schema field, in order, named F0, F1, ... and tagged
// avro:"<name>"; Avro boolean as bool, int as int32, long as int64, float
// as float32, double as float64, string as string, arrays as slices of
// those, a ["null", T] union as *T.
func (g *Generic) StructType() (reflect.Type, error) {
	var fields []reflect.StructField
	for i, f := range g.schema.(*avro.RecordSchema).Fields() {
		t, err := goType(f.Type())
		if err != nil {
			return nil, fmt.Errorf("codec: field %s: %w", f.Name(), err)
		}
		fields = append(fields, reflect.StructField{
			Name: fmt.Sprintf("F%d", i),
			Type: t,
			Tag:  reflect.StructTag(fmt.Sprintf("avro:%q", f.Name())),
		})
	}
	return reflect.StructOf(fields), nil
}

// UnmarshalStruct decodes b with hamba's struct decoder into v, a pointer
// to a value of the type StructType returns.
func (g *Generic) UnmarshalStruct(b []byte, v any) error {
	return g.api.Unmarshal(g.schema, b, v)
}

// goType is the Go type StructType gives a value of Avro schema s.
func goType(s avro.Schema) (reflect.Type, error) {
	s = deref(s)
	switch s.Type() {
	case avro.Boolean:
		return reflect.TypeFor[bool](), nil
	case avro.Int:
		return reflect.TypeFor[int32](), nil
	case avro.Long:
		return reflect.TypeFor[int64](), nil
	case avro.Float:
		return reflect.TypeFor[float32](), nil
	case avro.Double:
		return reflect.TypeFor[float64](), nil
	case avro.String:
		return reflect.TypeFor[string](), nil
	case avro.Array:
		t, err := goType(s.(*avro.ArraySchema).Items())
		if err != nil {
			return nil, err
		}
		return reflect.SliceOf(t), nil
	case avro.Union:
		u := s.(*avro.UnionSchema)
		if ts := u.Types(); len(ts) == 2 && ts[0].Type() == avro.Null {
			t, err := goType(ts[1])
			if err != nil {
				return nil, err
			}
			return reflect.PointerTo(t), nil
		}
	}
	return nil, fmt.Errorf("no Go type for %s", describe(s))
}

// wrapUnion returns v in hamba's map form for union u: the first non-null
// branch whose Avro type can hold v's Go type.
func wrapUnion(u *avro.UnionSchema, v any) (any, error) {
	switch v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any: // already in hamba's form
		return v, nil
	}
	for _, b := range u.Types() {
		b = deref(b)
		if b.Type() != avro.Null && holds(b, v) {
			return map[string]any{unionName(b): v}, nil
		}
	}
	return nil, fmt.Errorf("no branch of %s holds a %T", describe(u), v)
}

func unionName(s avro.Schema) string {
	if n, ok := s.(avro.NamedSchema); ok {
		return n.FullName()
	}
	name := string(s.Type())
	if l, ok := s.(avro.LogicalTypeSchema); ok && l.Logical() != nil {
		name += "." + string(l.Logical().Type())
	}
	return name
}

// holds reports whether a canonical Go value fits Avro schema s.
func holds(s avro.Schema, v any) bool {
	switch s.Type() {
	case avro.Boolean:
		_, ok := v.(bool)
		return ok
	case avro.Int:
		switch v.(type) {
		case uint8, int16, int32, uint16:
			return true
		}
	case avro.Long:
		switch v.(type) {
		case int64, uint32:
			return true
		}
	case avro.Float:
		_, ok := v.(float32)
		return ok
	case avro.Double:
		_, ok := v.(float64)
		return ok
	case avro.String:
		_, ok := v.(string)
		return ok
	case avro.Array:
		switch v.(type) {
		case []bool, []uint8, []int16, []int32, []int64, []uint16, []uint32, []float32, []float64, []string:
			return true
		}
	}
	return false
}
