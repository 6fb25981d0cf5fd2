package validate_test

import (
	"testing"

	"github.com/lsst-sal/salgo/validate"
)

// BenchmarkValidate_ForceActuatorData is the writer's hot path: a complete,
// canonical MTM1M3 forceActuatorData record (23 fields, 811 floats).
func BenchmarkValidate_ForceActuatorData(b *testing.B) {
	top := forceActuatorTopic()
	v := validate.Compile(top)
	rec := forceActuatorRecord(top)
	if err := v.Validate(rec); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Validate(rec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate_ForceActuatorDataFloat64 converts the 7 arrays from
// []float64 (a convenient input) on every call.
func BenchmarkValidate_ForceActuatorDataFloat64(b *testing.B) {
	top := forceActuatorTopic()
	v := validate.Compile(top)
	src := forceActuatorRecord(top)
	for k, x := range src {
		if s, ok := x.([]float32); ok {
			d := make([]float64, len(s))
			for i := range s {
				d[i] = float64(s[i])
			}
			src[k] = d
		}
	}
	rec := copyRecord(src)
	b.ReportAllocs()
	for b.Loop() {
		for k, x := range src {
			rec[k] = x
		}
		if err := v.Validate(rec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck_ForceActuatorData is the reader's check of a decoded record.
func BenchmarkCheck_ForceActuatorData(b *testing.B) {
	top := forceActuatorTopic()
	v := validate.Compile(top)
	rec := forceActuatorRecord(top)
	b.ReportAllocs()
	for b.Loop() {
		if r := v.Check(rec); !r.OK() {
			b.Fatal(r)
		}
	}
}

// BenchmarkNormalize_ForceActuatorDataHamba converts hamba/avro's decoded
// shape ([]any of float32 for every array) to canonical slices.
func BenchmarkNormalize_ForceActuatorDataHamba(b *testing.B) {
	top := forceActuatorTopic()
	v := validate.Compile(top)
	src := forceActuatorRecord(top)
	for k, x := range src {
		switch y := x.(type) {
		case []float32:
			d := make([]any, len(y))
			for i := range y {
				d[i] = y[i]
			}
			src[k] = d
		case int32:
			src[k] = int(y)
		}
	}
	rec := copyRecord(src)
	b.ReportAllocs()
	for b.Loop() {
		for k, x := range src {
			rec[k] = x
		}
		if err := v.Normalize(rec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNew_ForceActuatorData builds a fresh default record.
func BenchmarkNew_ForceActuatorData(b *testing.B) {
	v := validate.Compile(forceActuatorTopic())
	b.ReportAllocs()
	for b.Loop() {
		_ = v.New()
	}
}
