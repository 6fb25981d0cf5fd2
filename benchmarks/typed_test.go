package benchmarks

import (
	"reflect"
	"testing"

	"github.com/lsst-sal/salgo/examples/gen/example"
	"github.com/lsst-sal/salgo/internal/benchkit"
)

// Typed records (issue 28): the benchmarks of the structs cmd/salgen
// generates, beside the map path's. The small records are
// examples/gen/example's, measured in this process. The others are
// generated from the real ts_xml (TS_XML_DIR) when the benchmark runs,
// never committed: benchkit.RunScratch generates MTM1M3's and MTCamera's
// packages into a scratch module in the user's cache folder, builds its
// test binary once per process (the first typed fad or largest row pays
// for it, outside the timed part), runs the same benchkit function there
// with this benchmark's b.N and reports its figures here. Without
// TS_XML_DIR those rows are skipped, as the other fad and largest rows
// are. With -benchtime Nx the child runs N iterations; with a duration
// it runs for that long and the row's iteration count reads 1 (the
// figures are the child's).

// forTyped runs benchmark bench for the three sizes: small with small
// (benchkit's function for example.Scalars), the others in the scratch
// module.
func forTyped(b *testing.B, bench string, small func(b *testing.B, comp, topic string)) {
	for _, s := range benchkit.Sizes {
		b.Run(s.Name, func(b *testing.B) {
			if s.Comp == "Example" {
				small(b, s.Comp, s.Topic)
				return
			}
			benchkit.RunScratch(b, bench, s)
		})
	}
}

// BenchmarkReadTyped: BenchmarkReadRecycled with a typed reader (made
// with ReaderOptions.Record, decoding straight into records) and a typed
// callback that hands every record back: the same gating, raw baseline
// in the same function and metrics.
func BenchmarkReadTyped(b *testing.B) {
	forTyped(b, "ReadTyped", benchkit.ReadTyped[*example.Scalars])
}

// BenchmarkWriteAsyncTyped: BenchmarkWriteAsync with
// TypedWriter.WriteAsync of typed records holding the same values as the
// map records (FromMap of each).
func BenchmarkWriteAsyncTyped(b *testing.B) {
	forTyped(b, "WriteAsyncTyped", benchkit.WriteAsyncTyped[*example.Scalars])
}

// BenchmarkTypedEncode: BenchmarkValidateEncodePooled for a typed record
// (Record.Validate, then the header and Record.AppendAvro into a reused
// buffer), what a TypedWriter does per record.
func BenchmarkTypedEncode(b *testing.B) {
	forTyped(b, "TypedEncode", benchkit.TypedEncode[*example.Scalars])
}

// BenchmarkTypedDecode: BenchmarkDecode for a typed record
// (Record.DecodeAvro into a new record each time).
func BenchmarkTypedDecode(b *testing.B) {
	forTyped(b, "TypedDecode", benchkit.TypedDecode[*example.Scalars])
}

// BenchmarkTypedDecodeRecycled: BenchmarkDecodeRecycled for a typed
// record (Record.DecodeAvro into one reused record).
func BenchmarkTypedDecodeRecycled(b *testing.B) {
	forTyped(b, "TypedDecodeRecycled", benchkit.TypedDecodeRecycled[*example.Scalars])
}

// BenchmarkHambaDecodeStruct: the typed baseline, hamba/avro's struct
// decoder into a new Go struct each time (a field per schema field,
// built with reflect.StructOf and avro tags: codec.Generic.StructType).
func BenchmarkHambaDecodeStruct(b *testing.B) {
	forSizes(b, func(b *testing.B, f *fixture) {
		typ, err := f.Generic.StructType()
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := f.Generic.UnmarshalStruct(f.Body, reflect.New(typ).Interface()); err != nil {
				b.Fatal(err)
			}
		}
	})
}
