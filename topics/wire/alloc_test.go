package wire_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/topics/wire"
	"github.com/lsst-sal/salgo/validate"
)

// exampleBodies returns a random record body of Example scalars and of
// arrays, encoded by the map codec.
func exampleBodies(tb testing.TB) (scalars, arrays []byte) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i, name := range []string{"scalars", "arrays"} {
		top, c := exampleTopic(tb, name)
		rec := validate.Compile(top).Random(rng)
		rec["private_revCode"] = "7d0e5a3f"
		rec["private_identity"] = "user@host"
		b, err := c.Append(nil, rec)
		if err != nil {
			tb.Fatal(err)
		}
		if i == 0 {
			scalars = b
		} else {
			arrays = b
		}
	}
	return scalars, arrays
}

// TestDecodeNoAllocs: decoding into a recycled record whose strings are
// unchanged allocates nothing.
func TestDecodeNoAllocs(t *testing.T) {
	scalars, arrays := exampleBodies(t)
	var s exScalars
	var a exArrays
	if _, err := s.DecodeAvro(scalars); err != nil {
		t.Fatal(err)
	}
	if _, err := a.DecodeAvro(arrays); err != nil {
		t.Fatal(err)
	}
	if got := s.AppendAvro(nil); !bytes.Equal(got, scalars) {
		t.Fatalf("scalars round trip: %x, want %x", got, scalars)
	}
	if got := a.AppendAvro(nil); !bytes.Equal(got, arrays) {
		t.Fatalf("arrays round trip: %x, want %x", got, arrays)
	}
	if n := testing.AllocsPerRun(100, func() {
		if _, err := s.DecodeAvro(scalars); err != nil {
			t.Fatal(err)
		}
		if _, err := a.DecodeAvro(arrays); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("decoding recycled records allocates %v times", n)
	}
	buf := make([]byte, 0, len(scalars)+len(arrays))
	if n := testing.AllocsPerRun(100, func() {
		buf = a.AppendAvro(s.AppendAvro(buf[:0]))
	}); n != 0 {
		t.Errorf("appending into a large enough buffer allocates %v times", n)
	}
}

// TestDecodeHostileLengths: a huge declared string or array length in a
// short input fails at once, allocating only the error.
func TestDecodeHostileLengths(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  []byte
		read func(d *wire.Decoder)
		want string
	}{
		{"string", cat(varint(1<<40), []byte("abc")), func(d *wire.Decoder) { d.String("s", "", 0) },
			"codec: C.t: field s at byte 6: truncated input"},
		{"doubles", cat(varint(1<<40), []byte("abcdefgh")), func(d *wire.Decoder) { d.Doubles("a", make([]float64, 5)) },
			"codec: C.t: field a at byte 6: truncated input: array or map count larger than the remaining input"},
		{"bytes", cat(varint(-1<<40), varint(1<<40), []byte("abc")), func(d *wire.Decoder) { d.Bytes("a", make([]uint8, 5)) },
			"codec: C.t: field a at byte 12: truncated input: array or map count larger than the remaining input"},
	} {
		var d wire.Decoder
		var err error
		run := func() {
			d.Reset("C.t", tc.src)
			tc.read(&d)
			_, err = d.Finish()
		}
		run()
		if !errors.Is(err, wire.ErrTruncated) || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.want)
		}
		const runs = 1000
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			run()
		}
		runtime.ReadMemStats(&after)
		// One *DecodeError (64 bytes) per run; the array readers' dst
		// of the test itself is 40 or 5 bytes.
		if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 128 {
			t.Errorf("%s: %d bytes allocated per decode of %d bytes declaring 2^40", tc.name, per, len(tc.src))
		}
	}
}

// The codec decoder beside wire's on the same body, for comparison.
func BenchmarkDecodeScalars(b *testing.B) {
	scalars, _ := exampleBodies(b)
	b.Run("wire", func(b *testing.B) {
		var s exScalars
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.DecodeAvro(scalars); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("codec.DecodeInto", func(b *testing.B) {
		_, c := exampleTopic(b, "scalars")
		rec := map[string]any{}
		b.ReportAllocs()
		for b.Loop() {
			if err := c.DecodeInto(scalars, rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkDecodeArrays(b *testing.B) {
	_, arrays := exampleBodies(b)
	b.Run("wire", func(b *testing.B) {
		var a exArrays
		b.ReportAllocs()
		for b.Loop() {
			if _, err := a.DecodeAvro(arrays); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("codec.DecodeInto", func(b *testing.B) {
		_, c := exampleTopic(b, "arrays")
		rec := map[string]any{}
		b.ReportAllocs()
		for b.Loop() {
			if err := c.DecodeInto(arrays, rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkAppendScalars(b *testing.B) {
	scalars, _ := exampleBodies(b)
	var s exScalars
	if _, err := s.DecodeAvro(scalars); err != nil {
		b.Fatal(err)
	}
	rec, _ := exampleTopicCodec(b, "scalars").Decode(scalars)
	buf := make([]byte, 0, 256)
	b.Run("wire", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = s.AppendAvro(buf[:0])
		}
	})
	b.Run("codec.Append", func(b *testing.B) {
		c := exampleTopicCodec(b, "scalars")
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = c.Append(buf[:0], rec)
		}
	})
}

func exampleTopicCodec(tb testing.TB, name string) *codec.Codec {
	_, c := exampleTopic(tb, name)
	return c
}

func BenchmarkAppendArrays(b *testing.B) {
	_, arrays := exampleBodies(b)
	var a exArrays
	if _, err := a.DecodeAvro(arrays); err != nil {
		b.Fatal(err)
	}
	c := exampleTopicCodec(b, "arrays")
	rec, _ := c.Decode(arrays)
	buf := make([]byte, 0, 512)
	b.Run("wire", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = a.AppendAvro(buf[:0])
		}
	})
	b.Run("codec.Append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = c.Append(buf[:0], rec)
		}
	})
}
