package benchmarks

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// sizes are the three record sizes every codec benchmark runs on.
var sizes = []struct {
	name, comp, topic string
}{
	{"small", "Example", "scalars"},                                         // ~100 B: every SAL type once
	{"fad", "MTM1M3", "forceActuatorData"},                                  // 3.3 KB
	{"largest", "MTCamera", "logevent_focal_plane_Reb_LimitsConfiguration"}, // ~116 KB
}

func definitions(tb testing.TB) *salxml.Definitions {
	tb.Helper()
	dir := os.Getenv("TS_XML_DIR")
	if dir == "" {
		if _, err := os.Stat(filepath.Join("..", "..", "shared", "ts_xml")); err == nil {
			dir = filepath.Join("..", "..", "shared", "ts_xml")
		}
	}
	if dir == "" {
		return salxml.Embedded()
	}
	d, err := salxml.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// fixture is one topic with a valid record, its encoding and its codecs.
type fixture struct {
	topic   *salxml.Topic
	val     *validate.Validator
	codec   *codec.Codec
	generic *codec.Generic
	rec     map[string]any
	body    []byte
}

func newFixture(tb testing.TB, comp, topic string) *fixture {
	tb.Helper()
	defs := definitions(tb)
	if comp == "Example" {
		defs = salxml.Embedded()
	}
	if !defs.Has(comp) {
		tb.Skipf("component %s is only in the real ts_xml: set TS_XML_DIR", comp)
	}
	c, err := defs.Component(comp)
	if err != nil {
		tb.Fatal(err)
	}
	t := c.Topic(topic)
	if t == nil {
		tb.Fatalf("%s has no topic %s", comp, topic)
	}
	f := &fixture{topic: t, val: validate.Compile(t)}
	if f.codec, err = codec.New(t); err != nil {
		tb.Fatal(err)
	}
	if f.generic, err = codec.NewGeneric(t.AvroSchema()); err != nil {
		tb.Fatal(err)
	}
	f.rec = f.val.Random(rand.New(rand.NewPCG(1, 2)))
	f.rec["private_revCode"] = t.RevCode()
	f.rec["private_identity"] = "user@host.example.org"
	f.rec["private_seqNum"] = int32(12345)
	f.rec["private_origin"] = int32(4321)
	if err := f.val.Validate(f.rec); err != nil {
		tb.Fatal(err)
	}
	if f.body, err = f.codec.Append(nil, f.rec); err != nil {
		tb.Fatal(err)
	}
	return f
}

func forSizes(b *testing.B, fn func(b *testing.B, f *fixture)) {
	for _, s := range sizes {
		b.Run(s.name, func(b *testing.B) {
			f := newFixture(b, s.comp, s.topic)
			b.SetBytes(int64(len(f.body)))
			b.ReportAllocs()
			fn(b, f)
		})
	}
}

// BenchmarkValidate: the write-side check of a complete canonical record.
func BenchmarkValidate(b *testing.B) {
	forSizes(b, func(b *testing.B, f *fixture) {
		for b.Loop() {
			if err := f.val.Validate(f.rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkValidateEncode: what a writer does per record, into a fresh
// buffer as the Kafka client needs (the buffer is the one allocation).
func BenchmarkValidateEncode(b *testing.B) {
	forSizes(b, func(b *testing.B, f *fixture) {
		for b.Loop() {
			if err := f.val.Validate(f.rec); err != nil {
				b.Fatal(err)
			}
			buf := codec.AppendHeader(make([]byte, 0, 5+f.codec.SizeHint()), 1)
			if _, err := f.codec.Append(buf, f.rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkValidateEncodePooled: the same into a reused buffer, as the
// SDK's writer does (its buffers return to a pool once Kafka acknowledged
// the record).
func BenchmarkValidateEncodePooled(b *testing.B) {
	forSizes(b, func(b *testing.B, f *fixture) {
		buf := make([]byte, 0, 5+f.codec.SizeHint())
		for b.Loop() {
			if err := f.val.Validate(f.rec); err != nil {
				b.Fatal(err)
			}
			var err error
			if buf, err = f.codec.Append(codec.AppendHeader(buf[:0], 1), f.rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkHambaEncode: the baseline, hamba/avro's generic map encoder.
func BenchmarkHambaEncode(b *testing.B) {
	forSizes(b, func(b *testing.B, f *fixture) {
		for b.Loop() {
			if _, err := f.generic.Marshal(f.rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkHambaValidateEncode: the baseline with our validation.
func BenchmarkHambaValidateEncode(b *testing.B) {
	forSizes(b, func(b *testing.B, f *fixture) {
		for b.Loop() {
			if err := f.val.Validate(f.rec); err != nil {
				b.Fatal(err)
			}
			if _, err := f.generic.Marshal(f.rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecode: the compiled decoder into a fresh map (what a reader does).
func BenchmarkDecode(b *testing.B) {
	forSizes(b, func(b *testing.B, f *fixture) {
		for b.Loop() {
			if _, err := f.codec.Decode(f.body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecodeRecycled: the compiled decoder into a record handed
// back with Reader.Recycle (what a reader does for an application that
// recycles its records): arrays are overwritten in place.
func BenchmarkDecodeRecycled(b *testing.B) {
	forSizes(b, func(b *testing.B, f *fixture) {
		rec, err := f.codec.Decode(f.body)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := f.codec.DecodeInto(f.body, rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecodeCheck: decode plus the read-side bounds check.
func BenchmarkDecodeCheck(b *testing.B) {
	forSizes(b, func(b *testing.B, f *fixture) {
		for b.Loop() {
			rec, err := f.codec.Decode(f.body)
			if err != nil {
				b.Fatal(err)
			}
			if r := f.val.Check(rec); !r.OK() {
				b.Fatal(r)
			}
		}
	})
}

// BenchmarkHambaDecode: the baseline, hamba's generic map decoder plus the
// normalisation to canonical types that its []any arrays need.
func BenchmarkHambaDecode(b *testing.B) {
	forSizes(b, func(b *testing.B, f *fixture) {
		for b.Loop() {
			rec, err := f.generic.Unmarshal(f.body)
			if err != nil {
				b.Fatal(err)
			}
			if err := f.val.Normalize(rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLoadAll: open the definitions, load every component and compile
// every topic's validator and codec.
func BenchmarkLoadAll(b *testing.B) {
	dir := os.Getenv("TS_XML_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "ts_xml")
		if _, err := os.Stat(dir); err != nil {
			b.Skip("TS_XML_DIR is not set: loading all components needs the real ts_xml")
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		d, err := salxml.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		comps, err := d.All()
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, c := range comps {
			for _, t := range c.Topics {
				validate.Compile(t)
				if _, err := codec.New(t); err != nil {
					b.Fatal(err)
				}
				_ = t.AvroSchema()
				n++
			}
		}
		b.ReportMetric(float64(n), "topics")
	}
}
