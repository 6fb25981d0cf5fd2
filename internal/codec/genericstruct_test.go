package codec_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestGeneric_StructType: hamba's struct decoder, into the type
// StructType builds, reads back every field of random records of every
// SAL type (scalars, arrays, nullables), as Codec wrote them.
func TestGeneric_StructType(t *testing.T) {
	top := allTypes()
	c, g := mustNew(t, top), mustGeneric(t, top)
	typ, err := g.StructType()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(28, 1))
	for range 20 {
		rec := randomRecord(r, top)
		body, err := c.Append(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		v := reflect.New(typ)
		if err := g.UnmarshalStruct(body, v.Interface()); err != nil {
			t.Fatal(err)
		}
		for i, f := range top.Fields {
			got := v.Elem().Field(i)
			if got.Kind() == reflect.Pointer {
				if got.IsNil() {
					if rec[f.Name] != nil {
						t.Fatalf("%s: got null, want %v", f.Name, rec[f.Name])
					}
					continue
				}
				got = got.Elem()
			}
			if g, w := fmt.Sprint(got.Interface()), fmt.Sprint(rec[f.Name]); g != w {
				t.Fatalf("%s: got %s, want %s", f.Name, g, w)
			}
		}
	}
}
