package benchkit

import (
	"bytes"
	"context"
	"testing"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/topics"
)

// Typed-record benchmarks, generic over R, a record type cmd/salgen
// generated for the topic comp.topic (a pointer to its struct). Package
// benchmarks calls them with examples/gen/example for the small records,
// and the scratch module (RunScratch) with the packages it generates from
// the real ts_xml for the others.

// recordType returns R's RecordType.
func recordType[R topics.Record]() *topics.RecordType {
	var zero R
	return zero.RecordType()
}

// ReadTyped is BenchmarkReadRecycled with a typed reader: the Reader is
// made with ReaderOptions.Record (it decodes straight into records of
// type R) and the application is a typed callback that hands every
// record back (TypedReader.Recycle). Same raw baseline and metrics as
// Read.
func ReadTyped[R topics.Record](b *testing.B, comp, topic string) {
	e := NewEnv(b, comp, topic)
	Read(b, e, topics.ReaderOptions{Record: recordType[R]()}, func(r *topics.Reader) {
		tr, err := topics.NewTypedReader[R](r)
		if err != nil {
			b.Fatal(err)
		}
		tr.SetCallback(tr.Recycle)
	})
}

// WriteAsyncTyped is BenchmarkWriteAsync with TypedWriter.WriteAsync of
// typed records holding the same values as the map records
// (Record.FromMap of each).
func WriteAsyncTyped[R topics.Record](b *testing.B, comp, topic string) {
	e := NewEnv(b, comp, topic)
	typ := recordType[R]()
	recs := make([]R, len(e.Recs))
	for i, m := range e.Recs {
		recs[i] = typ.New().(R)
		if err := recs[i].FromMap(m); err != nil {
			b.Fatal(err)
		}
	}
	WriteAsync(b, e, func(w *topics.Writer) Sender {
		tw, err := topics.NewTypedWriter[R](w)
		if err != nil {
			b.Fatal(err)
		}
		return func(ctx context.Context, i int, done func(topics.WriteResult, error)) error {
			return tw.WriteAsync(ctx, recs[i%Distinct], done)
		}
	})
}

// typedFixture returns the fixture of comp.topic and a record of type R
// decoded from its body (every field set, the private ones included),
// after checking that R encodes it back to the same bytes.
func typedFixture[R topics.Record](b *testing.B, comp, topic string) (*Fixture, R) {
	b.Helper()
	f := NewFixture(b, comp, topic)
	rec := recordType[R]().New().(R)
	if _, err := rec.DecodeAvro(f.Body); err != nil {
		b.Fatal(err)
	}
	if got := rec.AppendAvro(nil); !bytes.Equal(got, f.Body) {
		b.Fatalf("%s: the typed record encodes to %d bytes that differ from the map codec's %d", f.Topic, len(got), len(f.Body))
	}
	b.SetBytes(int64(len(f.Body)))
	b.ReportAllocs()
	return f, rec
}

// TypedEncode is BenchmarkValidateEncodePooled for a typed record: what a
// TypedWriter does per record (Record.Validate, then the header and
// Record.AppendAvro into a reused buffer).
func TypedEncode[R topics.Record](b *testing.B, comp, topic string) {
	_, rec := typedFixture[R](b, comp, topic)
	buf := make([]byte, 0, 5+len(rec.AppendAvro(nil)))
	for b.Loop() {
		if err := rec.Validate(false); err != nil {
			b.Fatal(err)
		}
		buf = rec.AppendAvro(codec.AppendHeader(buf[:0], 1))
	}
}

// TypedDecode is BenchmarkDecode for a typed record: Record.DecodeAvro
// into a new record each time (what a typed reader does for an
// application that does not recycle).
func TypedDecode[R topics.Record](b *testing.B, comp, topic string) {
	f, _ := typedFixture[R](b, comp, topic)
	typ := recordType[R]()
	for b.Loop() {
		if n, err := typ.New().DecodeAvro(f.Body); err != nil || n != 0 {
			b.Fatal(n, err)
		}
	}
}

// TypedDecodeRecycled is BenchmarkDecodeRecycled for a typed record:
// Record.DecodeAvro into one reused record (what a typed reader does for
// an application that recycles its records).
func TypedDecodeRecycled[R topics.Record](b *testing.B, comp, topic string) {
	f, rec := typedFixture[R](b, comp, topic)
	for b.Loop() {
		if n, err := rec.DecodeAvro(f.Body); err != nil || n != 0 {
			b.Fatal(n, err)
		}
	}
}
