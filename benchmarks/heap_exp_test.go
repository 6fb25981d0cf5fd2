package benchmarks

import (
	"runtime"
	"testing"
)

var keep any

func BenchmarkDecodeHeapExp(b *testing.B) {
	defs := definitions(b)
	var comps []any
	for _, n := range defs.Names() {
		c, err := defs.Component(n)
		if err != nil {
			b.Fatal(err)
		}
		comps = append(comps, c)
	}
	keep = comps
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.Logf("live heap %d MB", ms.HeapAlloc>>20)
	f := newFixture(b, "MTM1M3", "forceActuatorData")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.codec.Decode(f.body); err != nil {
			b.Fatal(err)
		}
	}
}
