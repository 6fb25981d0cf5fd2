package topics_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/topics/wire"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TestPrivate_HeaderCodec: the header functions generated records call
// name the definitions' private fields (salIndex only on indexed
// components), round-trip through bytes and through a map, and fail on a
// truncated header. (Their bytes against the map codec's are checked
// through the generated Example package: internal/salgen's
// TestExample_Records.)
func TestPrivate_HeaderCodec(t *testing.T) {
	defs := salxml.Embedded()
	p := topics.Private{SalIndex: 7, SndStamp: 1.5, RcvStamp: 2.5, EfdStamp: 3.5, KafkaStamp: 4.5, SeqNum: -3, RevCode: "abcd1234", Identity: "Example:7", Origin: 4242}
	for _, indexed := range []bool{true, false} {
		// The embedded components are indexed; a component that is not
		// has the same fields but salIndex.
		comp, err := defs.Component("Example")
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, f := range comp.Topics[0].Fields {
			if f.Private && (indexed || f.Name != "salIndex") {
				want = append(want, f.Name)
			}
		}
		if !slices.Contains(want, "private_origin") || slices.Contains(want, "salIndex") != indexed {
			t.Fatalf("Example's private fields %v", want)
		}
		m := map[string]any{}
		topics.PrivateToMap(m, &p, indexed)
		if got := slices.Sorted(maps.Keys(m)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
			t.Errorf("indexed %v: PrivateToMap keys %v, want the definitions' private fields %v", indexed, got, want)
		}
		var q topics.Private
		e := validate.Fields{Component: "Example", Topic: "scalars"}
		topics.PrivateFromMap(&e, m, &q, indexed)
		wantQ := p
		if !indexed {
			wantQ.SalIndex = 0
		}
		if err := e.Err(); err != nil || q != wantQ {
			t.Errorf("indexed %v: PrivateFromMap: %+v, %v; want %+v", indexed, q, err, wantQ)
		}

		body := topics.AppendPrivate(nil, &p, indexed)
		var d wire.Decoder
		d.Reset("Example.scalars", body)
		q = topics.Private{}
		topics.DecodePrivate(&d, &q, indexed)
		if n, err := d.Finish(); err != nil || n != 0 || q != wantQ {
			t.Errorf("indexed %v: DecodePrivate: %+v, %d violations, %v; want %+v", indexed, q, n, err, wantQ)
		}
		d.Reset("Example.scalars", body[:len(body)-1])
		topics.DecodePrivate(&d, &q, indexed)
		if _, err := d.Finish(); err == nil {
			t.Errorf("indexed %v: a truncated header decoded", indexed)
		}
	}
}
