package codec_test

import (
	"math/rand/v2"
	"testing"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/xml"
)

// benchFixture is one forceActuatorData record, its body, and the codecs.
type benchFixture struct {
	top  *xml.Topic
	c    *codec.Codec
	g    *codec.Generic
	rec  map[string]any
	body []byte
}

func newBenchFixture(b *testing.B) *benchFixture {
	top := forceActuatorData()
	f := &benchFixture{top: top, c: mustNew(b, top), g: mustGeneric(b, top)}
	f.rec = randomRecord(rand.New(rand.NewPCG(40, 41)), top)
	f.rec["private_revCode"] = "b8f44b5e"
	f.rec["private_identity"] = "MTM1M3"
	var err error
	if f.body, err = f.c.Append(nil, f.rec); err != nil {
		b.Fatal(err)
	}
	return f
}

func BenchmarkAppend(b *testing.B) {
	f := newBenchFixture(b)
	b.Run("codec/reused", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(f.body)))
		buf := make([]byte, 0, f.c.SizeHint())
		for b.Loop() {
			var err error
			if buf, err = f.c.Append(buf[:0], f.rec); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("codec/fresh", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(f.body)))
		for b.Loop() {
			if _, err := f.c.Append(make([]byte, 0, f.c.SizeHint()), f.rec); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hamba/Marshal", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(f.body)))
		for b.Loop() {
			if _, err := f.g.Marshal(f.rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	f := newBenchFixture(b)
	b.Run("codec", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(f.body)))
		for b.Loop() {
			if _, err := f.c.Decode(f.body); err != nil {
				b.Fatal(err)
			}
		}
	})
	// What the SDK's reader does: DecodeIssues into a fresh empty map.
	b.Run("issues", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(f.body)))
		for b.Loop() {
			if _, err := f.c.DecodeIssues(f.body, make(map[string]any, len(f.top.Fields))); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("resolving", func(b *testing.B) {
		d := mustResolve(b, schemaText(f.top), f.top)
		b.ReportAllocs()
		b.SetBytes(int64(len(f.body)))
		for b.Loop() {
			if _, err := d.Decode(f.body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hamba/Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(f.body)))
		for b.Loop() {
			if _, err := f.g.Unmarshal(f.body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkDecodeInto(b *testing.B) {
	f := newBenchFixture(b)
	b.Run("codec/reused", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(f.body)))
		rec := make(map[string]any)
		for b.Loop() {
			if err := f.c.DecodeInto(f.body, rec); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("resolving/reused", func(b *testing.B) {
		d := mustResolve(b, schemaText(f.top), f.top)
		b.ReportAllocs()
		b.SetBytes(int64(len(f.body)))
		rec := make(map[string]any)
		for b.Loop() {
			if err := d.DecodeInto(f.body, rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}
