package benchmarks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lsst-sal/salgo/internal/benchkit"
	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// definitions returns the definitions of TS_XML_DIR (benchkit.Definitions).
func definitions(tb testing.TB) *salxml.Definitions { return benchkit.Definitions(tb) }

// fixture is one topic with a valid record, its encoding and its codecs.
type fixture = benchkit.Fixture

func newFixture(tb testing.TB, comp, topic string) *fixture {
	tb.Helper()
	return benchkit.NewFixture(tb, comp, topic)
}

func forSizes(b *testing.B, fn func(b *testing.B, f *fixture)) {
	for _, s := range benchkit.Sizes {
		b.Run(s.Name, func(b *testing.B) {
			f := newFixture(b, s.Comp, s.Topic)
			b.SetBytes(int64(len(f.Body)))
			b.ReportAllocs()
			fn(b, f)
		})
	}
}

// BenchmarkValidate: the write-side check of a complete canonical record.
func BenchmarkValidate(b *testing.B) {
	forSizes(b, func(b *testing.B, f *fixture) {
		for b.Loop() {
			if err := f.Val.Validate(f.Rec); err != nil {
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
			if err := f.Val.Validate(f.Rec); err != nil {
				b.Fatal(err)
			}
			buf := codec.AppendHeader(make([]byte, 0, 5+f.Codec.SizeHint()), 1)
			if _, err := f.Codec.Append(buf, f.Rec); err != nil {
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
		buf := make([]byte, 0, 5+f.Codec.SizeHint())
		for b.Loop() {
			if err := f.Val.Validate(f.Rec); err != nil {
				b.Fatal(err)
			}
			var err error
			if buf, err = f.Codec.Append(codec.AppendHeader(buf[:0], 1), f.Rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkHambaEncode: the baseline, hamba/avro's generic map encoder.
func BenchmarkHambaEncode(b *testing.B) {
	forSizes(b, func(b *testing.B, f *fixture) {
		for b.Loop() {
			if _, err := f.Generic.Marshal(f.Rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkHambaValidateEncode: the baseline with our validation.
func BenchmarkHambaValidateEncode(b *testing.B) {
	forSizes(b, func(b *testing.B, f *fixture) {
		for b.Loop() {
			if err := f.Val.Validate(f.Rec); err != nil {
				b.Fatal(err)
			}
			if _, err := f.Generic.Marshal(f.Rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecode: the compiled decoder into a fresh map (what a reader does).
func BenchmarkDecode(b *testing.B) {
	forSizes(b, func(b *testing.B, f *fixture) {
		for b.Loop() {
			if _, err := f.Codec.Decode(f.Body); err != nil {
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
		rec, err := f.Codec.Decode(f.Body)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := f.Codec.DecodeInto(f.Body, rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecodeCheck: decode plus the read-side bounds check.
func BenchmarkDecodeCheck(b *testing.B) {
	forSizes(b, func(b *testing.B, f *fixture) {
		for b.Loop() {
			rec, err := f.Codec.Decode(f.Body)
			if err != nil {
				b.Fatal(err)
			}
			if r := f.Val.Check(rec); !r.OK() {
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
			rec, err := f.Generic.Unmarshal(f.Body)
			if err != nil {
				b.Fatal(err)
			}
			if err := f.Val.Normalize(rec); err != nil {
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
