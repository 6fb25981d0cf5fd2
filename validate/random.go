package validate

import (
	"math/rand/v2"

	"github.com/lsst-sal/salgo/xml"
)

// Random returns a record whose user fields hold random valid values of
// the canonical types (strings within their bound, arrays of Count
// elements, nullable fields sometimes nil) and whose private fields are at
// their defaults. It is for examples, tests and benchmarks.
func (v *Validator) Random(rng *rand.Rand) map[string]any {
	rec := v.New()
	for _, f := range v.topic.Fields {
		if f.Private {
			continue
		}
		if f.Nullable && rng.IntN(4) == 0 {
			rec[f.Name] = nil
			continue
		}
		if f.Count > 1 && f.Type != xml.String {
			rec[f.Name] = randomSlice(f, rng)
		} else {
			rec[f.Name] = randomScalar(f, rng)
		}
	}
	return rec
}

func randomScalar(f *xml.Field, rng *rand.Rand) any {
	switch f.Type {
	case xml.Boolean:
		return rng.IntN(2) == 1
	case xml.Byte:
		return uint8(rng.UintN(256))
	case xml.Short:
		return int16(rng.Int32())
	case xml.Int, xml.Long:
		return rng.Int32() - rng.Int32()
	case xml.LongLong:
		return rng.Int64() - rng.Int64()
	case xml.UnsignedShort:
		return uint16(rng.UintN(65536))
	case xml.UnsignedInt:
		return rng.Uint32()
	case xml.Float:
		return float32(rng.NormFloat64() * 100)
	case xml.Double:
		return rng.NormFloat64() * 1e6
	case xml.String:
		n := rng.IntN(24)
		if m := f.MaxLen(); m > 0 && n > m {
			n = m
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		return string(b)
	}
	return nil
}

func randomSlice(f *xml.Field, rng *rand.Rand) any {
	n := f.Count
	switch f.Type {
	case xml.Boolean:
		return fillRandom(make([]bool, n), f, rng)
	case xml.Byte:
		return fillRandom(make([]uint8, n), f, rng)
	case xml.Short:
		return fillRandom(make([]int16, n), f, rng)
	case xml.Int, xml.Long:
		return fillRandom(make([]int32, n), f, rng)
	case xml.LongLong:
		return fillRandom(make([]int64, n), f, rng)
	case xml.UnsignedShort:
		return fillRandom(make([]uint16, n), f, rng)
	case xml.UnsignedInt:
		return fillRandom(make([]uint32, n), f, rng)
	case xml.Float:
		return fillRandom(make([]float32, n), f, rng)
	case xml.Double:
		return fillRandom(make([]float64, n), f, rng)
	}
	return nil
}

func fillRandom[T any](s []T, f *xml.Field, rng *rand.Rand) []T {
	for i := range s {
		s[i] = randomScalar(f, rng).(T)
	}
	return s
}
