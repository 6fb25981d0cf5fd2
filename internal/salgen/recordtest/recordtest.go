// Package recordtest checks generated typed records against the map
// codec, for the tests of internal/salgen and of the packages those
// tests generate. It is for tests only.
package recordtest

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/topics/wire"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// Options tune Check.
type Options struct {
	// Records is the number of random records per topic (default 20).
	Records int
	// Seed seeds the random records.
	Seed uint64
	// MaxTruncations bounds the prefixes decoded per topic (0: every
	// prefix of one record).
	MaxTruncations int
}

// Check checks every record type of types against the topics of comp:
// for random records (every field set, NaNs of any payload, strings in
// their bound, nulls) AppendAvro writes the bytes the map codec writes
// for ToMap's map; DecodeAvro of them gives the record back (NaN-aware),
// also into a recycled record; the codec's decoding of them through
// FromMap gives the record back and ToMap gives the codec's map back;
// Validate accepts the record and rejects an over-long string and invalid
// UTF-8 with Validator.Validate's text; every truncated prefix is an
// error, and a trailing byte ErrTrailing.
func Check(t *testing.T, comp *salxml.Component, types []*topics.RecordType, opts Options) {
	t.Helper()
	if opts.Records == 0 {
		opts.Records = 20
	}
	if len(types) != len(comp.Topics) {
		t.Fatalf("%d record types for %d topics of %s", len(types), len(comp.Topics), comp.Name)
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 28))
	for i, typ := range types {
		tp := comp.Topics[i]
		if typ.String() != tp.String() || typ.RevCode != tp.RevCode() || typ.Indexed != tp.Indexed {
			t.Errorf("record type %d is %s (revCode %s, indexed %t), topic %s (revCode %s, indexed %t)", i, typ, typ.RevCode, typ.Indexed, tp, tp.RevCode(), tp.Indexed)
			continue
		}
		checkTopic(t, tp, typ, rng, opts)
	}
}

func checkTopic(t *testing.T, tp *salxml.Topic, typ *topics.RecordType, rng *rand.Rand, opts Options) {
	t.Helper()
	c, err := codec.New(tp)
	if err != nil {
		t.Fatalf("%s: %v", tp, err)
	}
	if got := typ.New().RecordType(); got != typ {
		t.Errorf("%s: New().RecordType() is %v", tp, got)
	}
	recycled := typ.New()
	var last []byte
	for n := range opts.Records {
		rec := typ.New()
		Fill(rec, tp, rng)
		b := rec.AppendAvro(nil)
		m := map[string]any{}
		rec.ToMap(m, true)
		cb, err := c.Append(nil, m)
		if err != nil {
			t.Fatalf("%s: codec Append of ToMap's map: %v", tp, err)
		}
		if !bytes.Equal(b, cb) {
			t.Fatalf("%s: record %d: AppendAvro\n%x\ncodec\n%x", tp, n, b, cb)
		}
		for _, into := range []topics.Record{typ.New(), recycled} {
			v, err := into.DecodeAvro(b)
			if err != nil || v != 0 {
				t.Fatalf("%s: DecodeAvro: %d violations, %v", tp, v, err)
			}
			if d := Diff(rec, into); d != "" {
				t.Fatalf("%s: DecodeAvro gave another record: %s", tp, d)
			}
			if again := into.AppendAvro(nil); !bytes.Equal(again, b) {
				t.Fatalf("%s: decoded record encodes otherwise", tp)
			}
		}
		cm, err := c.Decode(b)
		if err != nil {
			t.Fatalf("%s: codec Decode: %v", tp, err)
		}
		rec3 := typ.New()
		if err := rec3.FromMap(cm); err != nil {
			t.Fatalf("%s: FromMap of the codec's map: %v", tp, err)
		}
		if d := Diff(rec, rec3); d != "" {
			t.Fatalf("%s: codec Decode + FromMap gave another record: %s", tp, d)
		}
		m3 := map[string]any{}
		rec3.ToMap(m3, true)
		if d := diffMaps(m3, cm); d != "" {
			t.Fatalf("%s: ToMap after FromMap differs from the codec's map: %s", tp, d)
		}
		checkValidate(t, tp, rec)
		last = b
	}
	// Every truncated prefix is an error, a trailing byte ErrTrailing.
	step := 1
	if opts.MaxTruncations > 0 && len(last) > opts.MaxTruncations {
		step = len(last)/opts.MaxTruncations + 1
	}
	for i := 0; i < len(last); i += step {
		_, err := recycled.DecodeAvro(last[:i])
		if !errors.Is(err, wire.ErrTruncated) && !errors.Is(err, wire.ErrInvalid) {
			t.Fatalf("%s: DecodeAvro of %d of %d bytes: %v, want ErrTruncated or ErrInvalid", tp, i, len(last), err)
		}
	}
	if _, err := recycled.DecodeAvro(append(last[:len(last):len(last)], 0)); !errors.Is(err, wire.ErrTrailing) {
		t.Fatalf("%s: DecodeAvro with a trailing byte: %v, want ErrTrailing", tp, err)
	}
}

// checkValidate checks Validate against Validator.Validate.
func checkValidate(t *testing.T, tp *salxml.Topic, rec topics.Record) {
	t.Helper()
	if err := rec.Validate(false); err != nil {
		t.Fatalf("%s: Validate of a valid record: %v", tp, err)
	}
	v, vu := validate.For(tp), validate.For(tp, validate.Unbounded())
	sv := reflect.ValueOf(rec).Elem()
	for i, f := range tp.UserFields() {
		if f.Type != salxml.String {
			continue
		}
		fv := sv.Field(i + 1)
		if f.Nullable {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		}
		old := fv.String()
		bad := []string{"a\xffb"}
		if n := f.MaxLen(); n > 0 {
			bad = append(bad, strings.Repeat("é", n/2+1))
		}
		for _, s := range bad {
			fv.SetString(s)
			m := map[string]any{}
			rec.ToMap(m, false)
			for _, u := range []bool{false, true} {
				want := v.Validate(m)
				if u {
					want = vu.Validate(m)
				}
				got := rec.Validate(u)
				if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
					t.Fatalf("%s: field %s = %q, unbounded %t: Validate: %v; Validator.Validate: %v", tp, f.Name, s, u, got, want)
				}
				if got != nil && !errors.Is(got, validate.ErrEncoding) && !errors.Is(got, validate.ErrStringLength) {
					t.Fatalf("%s: field %s: Validate's error %v matches neither ErrEncoding nor ErrStringLength", tp, f.Name, got)
				}
			}
		}
		fv.SetString(old)
	}
}

// Fill sets every field of rec, a record of topic tp, to a random value:
// private fields included (salIndex only on indexed topics), NaNs of any
// payload and infinities among the floats, strings within their bound
// (with two-byte characters), nullable fields nil a quarter of the time.
func Fill(rec topics.Record, tp *salxml.Topic, rng *rand.Rand) {
	sv := reflect.ValueOf(rec).Elem()
	p := sv.Field(0).Addr().Interface().(*topics.Private)
	*p = topics.Private{
		SndStamp: rng.Float64() * 2e9, RcvStamp: rng.Float64() * 2e9, EfdStamp: rng.Float64() * 2e9,
		KafkaStamp: rng.Float64() * 2e9, SeqNum: int32(rng.Uint32()), RevCode: randString(rng, 8),
		Identity: randString(rng, 30), Origin: int32(rng.Uint32()),
	}
	if tp.Indexed {
		p.SalIndex = int32(rng.Uint32())
	}
	fields := tp.UserFields()
	if sv.NumField() != len(fields)+1 {
		panic(fmt.Sprintf("%s: struct has %d fields for %d user fields", tp, sv.NumField()-1, len(fields)))
	}
	for i, f := range fields {
		fill(sv.Field(i+1), f, rng)
	}
}

func fill(v reflect.Value, f *salxml.Field, rng *rand.Rand) {
	switch v.Kind() {
	case reflect.Pointer:
		if rng.IntN(4) == 0 {
			v.SetZero()
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), f, rng)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), f, rng)
		}
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 1)
	case reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(rng.Uint64()) >> rng.IntN(64))
		if v.OverflowInt(v.Int()) {
			v.SetInt(v.Int() >> (64 - v.Type().Bits()))
		}
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		v.SetUint(rng.Uint64() >> (64 - v.Type().Bits()))
	case reflect.Float32:
		switch rng.IntN(8) {
		case 0:
			v.SetFloat(float64(math.Float32frombits(0x7f800001 | rng.Uint32()&0x807fffff)))
		case 1:
			v.SetFloat(math.Inf(1 - 2*rng.IntN(2)))
		default:
			v.SetFloat(float64(float32(rng.NormFloat64() * 1e3)))
		}
	case reflect.Float64:
		switch rng.IntN(8) {
		case 0:
			v.SetFloat(math.Float64frombits(0x7ff0000000000001 | rng.Uint64()&0x800fffffffffffff))
		case 1:
			v.SetFloat(math.Inf(1 - 2*rng.IntN(2)))
		default:
			v.SetFloat(rng.NormFloat64() * 1e6)
		}
	case reflect.String:
		n := 40
		if m := f.MaxLen(); m > 0 {
			n = m
		}
		v.SetString(randString(rng, rng.IntN(n+1)))
	default:
		panic("recordtest: field " + f.Name + " of kind " + v.Kind().String())
	}
}

// randString returns a valid UTF-8 string of at most n bytes.
func randString(rng *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		if n-b.Len() >= 2 && rng.IntN(5) == 0 {
			b.WriteString("é")
		} else {
			b.WriteByte(byte('a' + rng.IntN(26)))
		}
	}
	return b.String()
}

// Diff describes how records a and b differ (ToMap with the private
// fields, NaN equal to NaN), or returns "".
func Diff(a, b topics.Record) string {
	ma, mb := map[string]any{}, map[string]any{}
	a.ToMap(ma, true)
	b.ToMap(mb, true)
	return diffMaps(ma, mb)
}

func diffMaps(a, b map[string]any) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d fields, %d fields", len(a), len(b))
	}
	for k, va := range a {
		vb, ok := b[k]
		if !ok {
			return "field " + k + " missing"
		}
		if !Equal(va, vb) {
			return fmt.Sprintf("field %s: %#v, %#v", k, va, vb)
		}
	}
	return ""
}

// Equal compares canonical values, NaN equal to NaN.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case float32:
		y, ok := b.(float32)
		return ok && (x == y || x != x && y != y)
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || x != x && y != y)
	case []float32:
		y, ok := b.([]float32)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case []float64:
		y, ok := b.([]float64)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}
