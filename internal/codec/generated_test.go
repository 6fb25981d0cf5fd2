package codec_test

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/xml"
)

// TestGeneratedSchemas checks every topic of the definitions named by
// TS_XML_DIR (the embedded example when unset) against the schema text the
// xml package generates: hamba parses it, Append writes the bytes hamba
// writes for it, Decode reads them back, and a resolving decoder built
// from the text reads them too.
func TestGeneratedSchemas(t *testing.T) {
	defs, err := xml.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	comps, err := defs.All()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(50, 51))
	n := 0
	for _, comp := range comps {
		for _, top := range comp.Topics {
			n++
			text := top.AvroSchema()
			if err := codec.CheckSchema(text); err != nil {
				t.Errorf("%s: %v", top, err)
				continue
			}
			c, err := codec.New(top)
			if err != nil {
				t.Errorf("%s: %v", top, err)
				continue
			}
			g, err := codec.NewGeneric(text)
			if err != nil {
				t.Errorf("%s: %v", top, err)
				continue
			}
			d, err := codec.NewResolving(text, top)
			if err != nil {
				t.Errorf("%s: %v", top, err)
				continue
			}
			rec := randomRecord(r, top)
			ours, err := c.Append(nil, rec)
			if err != nil {
				t.Errorf("%s: %v", top, err)
				continue
			}
			theirs, err := g.Marshal(rec)
			if err != nil {
				t.Errorf("%s: hamba: %v", top, err)
				continue
			}
			if !bytes.Equal(ours, theirs) {
				t.Errorf("%s: Append and hamba differ", top)
				continue
			}
			for _, dec := range []*codec.Decoder{c.Decoder(), d} {
				got, err := dec.Decode(ours)
				if err != nil || !reflect.DeepEqual(got, rec) {
					t.Errorf("%s: decode: %v", top, err)
				}
			}
		}
	}
	t.Logf("%d topics checked", n)
}
