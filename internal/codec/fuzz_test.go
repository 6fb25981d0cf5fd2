package codec_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/lsst-sal/salgo/internal/codec"
)

// fuzzWriter is a writer schema with complex fields the reader skips and
// unions it resolves, for the resolving decoder under fuzzing.
const fuzzWriter = `{"type": "record", "name": "allTypes", "fields": [
	{"name": "skip", "type": ["null", {"type": "record", "name": "N", "fields": [
		{"name": "m", "type": {"type": "map", "values": ["null", "N"]}},
		{"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B"]}},
		{"name": "f", "type": {"type": "fixed", "name": "F", "size": 3}}]}]},
	{"name": "s_int", "type": ["null", "int", "string"]},
	{"name": "a_float", "type": {"type": "array", "items": ["int", "null", "float"]}},
	{"name": "s_double", "type": "float"}]}`

func FuzzDecode(f *testing.F) {
	top := allTypes()
	c := mustNew(f, top)
	fad := mustNew(f, forceActuatorData())
	d := mustResolve(f, fuzzWriter, top)
	r := rand.New(rand.NewPCG(30, 31))
	for range 5 {
		b, err := c.Append(nil, randomRecord(r, top))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	// A forceActuatorData body is 3.3 kB: seed only its start, to keep
	// the minimization of new inputs fast.
	b, _ := fad.Append(nil, randomRecord(r, forceActuatorData()))
	f.Add(b[:200])
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{2, 2, 3, 0x7f, 0})
	rec := map[string]any{}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecode(t, c, c.Decoder(), b, rec)
		checkDecode(t, fad, fad.Decoder(), b, map[string]any{})
		if _, err := d.Decode(b); err != nil {
			var de *codec.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("resolving: error %T %v", err, err)
			}
		}
		_ = d.DecodeInto(b, rec)
	})
}

// checkDecode decodes b, and if that works, checks that the record is
// canonical (it re-encodes) and that DecodeInto agrees.
func checkDecode(t *testing.T, c *codec.Codec, d *codec.Decoder, b []byte, rec map[string]any) {
	got, err := d.Decode(b)
	errInto := d.DecodeInto(b, rec)
	if (err == nil) != (errInto == nil) {
		t.Fatalf("Decode %v, DecodeInto %v", err, errInto)
	}
	if err != nil {
		if !errors.Is(err, codec.ErrTruncated) && !errors.Is(err, codec.ErrInvalid) && !errors.Is(err, codec.ErrTrailing) {
			t.Fatalf("unexpected error %v", err)
		}
		return
	}
	if _, err := c.Append(nil, got); err != nil {
		t.Fatalf("decoded record does not encode: %v", err)
	}
	if _, err := c.Append(nil, rec); err != nil {
		t.Fatalf("DecodeInto record does not encode: %v", err)
	}
}

func FuzzSplitHeader(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 1, 2, 3})
	f.Add([]byte{1, 0, 0, 0, 1})
	f.Add([]byte{0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		id, body, err := codec.SplitHeader(b)
		switch {
		case len(b) < codec.HeaderLen:
			if !errors.Is(err, codec.ErrTooShort) {
				t.Fatalf("%x: %v", b, err)
			}
		case b[0] != codec.Magic:
			if !errors.Is(err, codec.ErrBadMagic) {
				t.Fatalf("%x: %v", b, err)
			}
		default:
			if err != nil {
				t.Fatal(err)
			}
			if again := append(codec.AppendHeader(nil, id), body...); !bytes.Equal(again, b) {
				t.Fatalf("%x re-framed as %x", b, again)
			}
		}
	})
}
