package wire_test

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/topics/wire"
	"github.com/lsst-sal/salgo/xml"
)

func TestSentinelsAreCodecs(t *testing.T) {
	if codec.ErrTruncated != wire.ErrTruncated || codec.ErrInvalid != wire.ErrInvalid || codec.ErrTrailing != wire.ErrTrailing {
		t.Fatal("codec's ErrTruncated, ErrInvalid and ErrTrailing are not wire's")
	}
}

// compare decodes src with the map codec and with wire and fails unless
// they agree: the same error text, or the same values. For arrays wire
// holds Count items: those codec read (dropping extra ones), then zeros.
// It returns whether the decode succeeded.
func compare(t *testing.T, top *xml.Topic, c *codec.Codec, src []byte) bool {
	t.Helper()
	want, werr := c.Decode(src)
	var d wire.Decoder
	got := map[string]any{}
	violations, err := decodeRecord(&d, top, src, got)
	if (err == nil) != (werr == nil) {
		t.Fatalf("%s %x: wire error %v, codec error %v", top, src, err, werr)
	}
	if err != nil {
		var de *wire.DecodeError
		if !errors.As(err, &de) || de.Topic != top.String() {
			t.Fatalf("%s %x: error %#v is not a *wire.DecodeError naming the topic", top, src, err)
		}
		if err.Error() != werr.Error() {
			t.Fatalf("%s %x: wire error\n%s\ncodec error\n%s", top, src, err, werr)
		}
		for _, target := range []error{wire.ErrTruncated, wire.ErrInvalid, wire.ErrTrailing} {
			if errors.Is(err, target) != errors.Is(werr, target) {
				t.Fatalf("%s %x: errors.Is(%v, %v) differs from codec's %v", top, src, err, target, werr)
			}
		}
		return false
	}
	issues, _ := c.DecodeIssues(src, map[string]any{})
	wantViolations := 0
	for _, f := range top.Fields {
		w, g := want[f.Name], got[f.Name]
		if f.Count > 1 && f.Type != xml.String {
			var lenOK bool
			w, lenOK = fitted(w, f.Count)
			if !lenOK {
				wantViolations++
			}
		} else if s, ok := w.(string); ok && (!utf8.ValidString(s) || (f.MaxLen() > 0 && len(s) > f.MaxLen())) {
			wantViolations++
		}
		if !sameValue(w, g) {
			t.Fatalf("%s %x: field %s: wire %#v, codec %#v", top, src, f.Name, g, w)
		}
	}
	if wantViolations == 0 && violations != int(issues.OutOfRange) {
		t.Fatalf("%s %x: %d violations, codec counts %d out of range", top, src, violations, issues.OutOfRange)
	}
	if violations < wantViolations {
		t.Fatalf("%s %x: %d violations, want at least %d", top, src, violations, wantViolations)
	}
	return true
}

// fitted returns the codec's slice v with n items, as wire stores it, and
// whether it had n.
func fitted(v any, n int) (any, bool) {
	switch x := v.(type) {
	case []bool:
		return fit(x, n), len(x) == n
	case []uint8:
		return fit(x, n), len(x) == n
	case []int16:
		return fit(x, n), len(x) == n
	case []int32:
		return fit(x, n), len(x) == n
	case []int64:
		return fit(x, n), len(x) == n
	case []uint16:
		return fit(x, n), len(x) == n
	case []uint32:
		return fit(x, n), len(x) == n
	case []float32:
		return fit(x, n), len(x) == n
	case []float64:
		return fit(x, n), len(x) == n
	}
	return v, false
}

func fit[T any](s []T, n int) []T {
	out := make([]T, n)
	copy(out, s)
	return out
}

func TestDecodeMatchesCodec(t *testing.T) {
	for _, name := range []string{"scalars", "arrays"} {
		top, c := exampleTopic(t, name)
		for rname, rec := range exampleRecords(top) {
			src, err := c.Append(nil, rec)
			if err != nil {
				t.Fatal(err)
			}
			if !compare(t, top, c, src) {
				t.Fatalf("%s %s: decode failed", name, rname)
			}
		}
	}
}

// TestDecodeTruncated cuts every body at every length: each prefix fails
// with ErrTruncated in a *DecodeError naming the topic, the field and the
// offset, with codec's text; one more byte is ErrTrailing.
func TestDecodeTruncated(t *testing.T) {
	for _, name := range []string{"scalars", "arrays"} {
		top, c := exampleTopic(t, name)
		for rname, rec := range exampleRecords(top) {
			src, _ := c.Append(nil, rec)
			for n := range len(src) {
				var d wire.Decoder
				_, err := decodeRecord(&d, top, src[:n:n], map[string]any{})
				var de *wire.DecodeError
				if !errors.Is(err, wire.ErrTruncated) || !errors.As(err, &de) || de.Field == "" || de.Offset > n {
					t.Fatalf("%s %s cut at %d: %v", name, rname, n, err)
				}
				compare(t, top, c, src[:n:n])
			}
			long := append(src[:len(src):len(src)], 0)
			var d wire.Decoder
			_, err := decodeRecord(&d, top, long, map[string]any{})
			want := "codec: Example." + name + " at byte " + strconv.Itoa(len(src)) + ": trailing bytes after the record (" +
				strconv.Itoa(len(src)) + " of " + strconv.Itoa(len(long)) + " bytes used)"
			if !errors.Is(err, wire.ErrTrailing) || err.Error() != want {
				t.Fatalf("%s %s + 1 byte: %v, want %s", name, rname, err, want)
			}
			compare(t, top, c, long)
		}
	}
}

// Raw bodies built by hand, for one field each.
func varint(v int64) []byte { return wire.AppendLong(nil, v) }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func TestDecodeInvalid(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  []byte
		read func(d *wire.Decoder)
		want string
		is   error
	}{
		{"long varint", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
			func(d *wire.Decoder) { d.Long("x") }, "codec: C.t: field x at byte 10: invalid data: varint longer than 10 bytes", wire.ErrInvalid},
		{"int over 32 bits", varint(1 << 31), func(d *wire.Decoder) { d.Int("x") },
			"codec: C.t: field x at byte 5: invalid data: Avro int outside 32 bits", wire.ErrInvalid},
		{"byte over 32 bits", varint(-1<<31 - 1), func(d *wire.Decoder) { d.Byte("x") },
			"codec: C.t: field x at byte 5: invalid data: Avro int outside 32 bits", wire.ErrInvalid},
		{"bool 2", []byte{2}, func(d *wire.Decoder) { d.Bool("x") },
			"codec: C.t: field x at byte 0: invalid data: boolean byte not 0 or 1", wire.ErrInvalid},
		{"bool item 2", []byte{4, 1, 2, 0}, func(d *wire.Decoder) { d.Bools("x", make([]bool, 2)) },
			"codec: C.t: field x at byte 2: invalid data: boolean byte not 0 or 1", wire.ErrInvalid},
		{"negative length", varint(-1), func(d *wire.Decoder) { d.String("x", "", 0) },
			"codec: C.t: field x at byte 1: invalid data: negative length", wire.ErrInvalid},
		{"huge string", varint(1 << 60), func(d *wire.Decoder) { d.String("x", "", 0) },
			"codec: C.t: field x at byte 9: truncated input", wire.ErrTruncated},
		{"huge array", varint(1 << 60), func(d *wire.Decoder) { d.Doubles("x", make([]float64, 5)) },
			"codec: C.t: field x at byte 9: truncated input: array or map count larger than the remaining input", wire.ErrTruncated},
		{"huge negative count", cat(varint(-1<<60), varint(8)), func(d *wire.Decoder) { d.Bytes("x", make([]uint8, 5)) },
			"codec: C.t: field x at byte 10: truncated input: array or map count larger than the remaining input", wire.ErrTruncated},
		{"min count", cat(varint(math.MinInt64), varint(8)), func(d *wire.Decoder) { d.Ints("x", make([]int32, 5)) },
			"codec: C.t: field x at byte 10: invalid data: bad block count", wire.ErrInvalid},
		{"negative size", cat(varint(-1), varint(-8), varint(1)), func(d *wire.Decoder) { d.Ints("x", make([]int32, 5)) },
			"codec: C.t: field x at byte 2: invalid data: bad block count", wire.ErrInvalid},
		{"array item over 32 bits", cat(varint(1), varint(1<<40), varint(0)), func(d *wire.Decoder) { d.UShorts("x", make([]uint16, 1)) },
			"codec: C.t: field x at byte 7: invalid data: Avro int outside 32 bits", wire.ErrInvalid},
		{"union 2", varint(2), func(d *wire.Decoder) { d.Union("x") },
			"codec: C.t: field x at byte 1: invalid data: union index out of range", wire.ErrInvalid},
		{"union -1", varint(-1), func(d *wire.Decoder) { d.Union("x") },
			"codec: C.t: field x at byte 1: invalid data: union index out of range", wire.ErrInvalid},
		{"truncated float", []byte{1, 2, 3}, func(d *wire.Decoder) { d.Float("x") },
			"codec: C.t: field x at byte 0: truncated input", wire.ErrTruncated},
		{"no array end", cat(varint(1), varint(7)), func(d *wire.Decoder) { d.Longs("x", make([]int64, 1)) },
			"codec: C.t: field x at byte 2: truncated input", wire.ErrTruncated},
	} {
		var d wire.Decoder
		d.Reset("C.t", tc.src)
		tc.read(&d)
		// After the error every call reads nothing and returns zero.
		if d.Bool("y") || d.Int("y") != 0 || d.Long("y") != 0 || d.Double("y") != 0 || d.String("y", "old", 0) != "" || d.Union("y") {
			t.Errorf("%s: a call after the error returned a value", tc.name)
		}
		arr := []int32{7}
		d.Ints("y", arr)
		_, err := d.Finish()
		var de *wire.DecodeError
		if err == nil || err.Error() != tc.want || !errors.Is(err, tc.is) || !errors.As(err, &de) || de.Field != "x" || arr[0] != 7 {
			t.Errorf("%s: got %v, want %s", tc.name, err, tc.want)
		}
	}
}

// TestDecodeBlocks reads arrays in several blocks, with negative counts
// and byte sizes, as codec does.
func TestDecodeBlocks(t *testing.T) {
	top, c := exampleTopic(t, "arrays")
	rec := exampleRecords(top)["random0"]
	// Re-encode each array field in blocks of 2, 2 and 1 items, the second
	// with a negative count and its byte size.
	var src []byte
	for _, f := range top.Fields {
		one := appendRecord(t, nil, &xml.Topic{Fields: []*xml.Field{f}}, rec)
		if f.Count <= 1 || f.Type == xml.String {
			src = append(src, one...)
			continue
		}
		// one is: count 5 (1 byte), items, 0.
		items := splitItems(t, f, one[1:len(one)-1])
		src = append(src, varint(2)...)
		src = append(src, cat(items[0], items[1])...)
		b := cat(items[2], items[3])
		src = append(src, cat(varint(-2), varint(int64(len(b))), b)...)
		src = append(src, cat(varint(1), items[4], varint(0))...)
	}
	if !compare(t, top, c, src) {
		t.Fatal("decode failed")
	}
	var d wire.Decoder
	got := map[string]any{}
	if v, err := decodeRecord(&d, top, src, got); err != nil || v != 0 {
		t.Fatalf("%d violations, %v", v, err)
	}
	for _, f := range top.UserFields() {
		if !sameValue(got[f.Name], rec[f.Name]) {
			t.Errorf("field %s: %v, want %v", f.Name, got[f.Name], rec[f.Name])
		}
	}
}

// splitItems splits the encoded items of a 5-item array.
func splitItems(t *testing.T, f *xml.Field, b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		n := 1
		switch f.Type {
		case xml.Float:
			n = 4
		case xml.Double:
			n = 8
		case xml.Boolean:
		default:
			for b[n-1] >= 0x80 {
				n++
			}
		}
		out = append(out, b[:n])
		b = b[n:]
	}
	if len(out) != 5 {
		t.Fatalf("field %s: %d items", f.Name, len(out))
	}
	return out
}

// TestDecodeLengthMismatch: an array of another length is ONE violation;
// extra items are read and dropped, missing ones zeroed.
func TestDecodeLengthMismatch(t *testing.T) {
	var d wire.Decoder
	dst := []int16{9, 9, 9}
	d.Reset("C.t", wire.AppendShorts(nil, []int16{1, 2, 3, 4, 5}))
	d.Shorts("x", dst)
	if v, err := d.Finish(); v != 1 || err != nil || [3]int16(dst) != [3]int16{1, 2, 3} {
		t.Errorf("longer: %d violations, %v, %v", v, err, dst)
	}
	d.Reset("C.t", wire.AppendShorts(wire.AppendDoubles(nil, []float64{1.5}), []int16{1}))
	dd := []float64{9, 9}
	d.Doubles("y", dd)
	d.Shorts("x", dst)
	if v, err := d.Finish(); v != 2 || err != nil || [3]int16(dst) != [3]int16{1, 0, 0} || dd[0] != 1.5 || dd[1] != 0 {
		t.Errorf("shorter: %d violations, %v, %v %v", v, err, dst, dd)
	}
	d.Reset("C.t", []byte{0})
	d.Shorts("x", dst)
	if v, err := d.Finish(); v != 1 || err != nil || [3]int16(dst) != [3]int16{} {
		t.Errorf("empty: %d violations, %v, %v", v, err, dst)
	}
	// Out-of-range items dropped with the extra ones are not counted
	// again.
	d.Reset("C.t", wire.AppendInts(nil, []int32{1, 300}))
	b := []uint8{0}
	d.Bytes("x", b)
	if v, err := d.Finish(); v != 1 || err != nil || b[0] != 1 {
		t.Errorf("dropped out of range: %d violations, %v, %v", v, err, b)
	}
}

// TestDecodeOutOfRange: integers outside the SAL type are stored as Go
// converts them and counted, as codec counts them.
func TestDecodeOutOfRange(t *testing.T) {
	var d wire.Decoder
	src := cat(varint(300), varint(-1), varint(70000), varint(-32769), varint(1<<32+5), varint(-1), varint(1<<33))
	d.Reset("C.t", src)
	b, us, us2, s, ui, ui2, l := d.Byte("b"), d.UShort("us"), d.UShort("us2"), d.Short("s"), d.UInt("ui"), d.UInt("ui2"), d.Long("l")
	v, err := d.Finish()
	if err != nil || v != 6 || b != 44 || us != math.MaxUint16 || us2 != uint16(70000%65536) || s != math.MaxInt16 || ui != 5 || ui2 != math.MaxUint32 || l != 1<<33 {
		t.Errorf("%d violations, %v: %v %v %v %v %v %v %v", v, err, b, us, us2, s, ui, ui2, l)
	}
	d.Reset("C.t", wire.AppendLongs(nil, []int64{-1, 1 << 32, 3}))
	arr := make([]uint32, 3)
	d.UInts("x", arr)
	if v, err := d.Finish(); v != 2 || err != nil || arr[0] != math.MaxUint32 || arr[1] != 0 || arr[2] != 3 {
		t.Errorf("array: %d violations, %v, %v", v, err, arr)
	}
}

func TestDecodeStrings(t *testing.T) {
	var d wire.Decoder
	old := strings.Repeat("x", 5)
	src := cat(wire.AppendString(nil, "xxxxx"), wire.AppendString(nil, "xxxxx"), wire.AppendString(nil, "\xff"), wire.AppendString(nil, "héllo"))
	d.Reset("C.t", src)
	a := d.String("a", old, 5)
	b := d.String("b", old, 4)
	c := d.String("c", "", 0)
	e := d.String("e", "", 5) // 6 bytes
	v, err := d.Finish()
	if err != nil || v != 3 || a != old || b != old || c != "\xff" || e != "héllo" {
		t.Errorf("%d violations, %v: %q %q %q %q", v, err, a, b, c, e)
	}
	if unsafeSame(a, old) == false {
		t.Error("an equal string is not the old one")
	}
	d.Reset("C.t", []byte{0, 2})
	if !d.Union("n") || d.Union("v") {
		t.Error("union branches")
	}
	if v, err := d.Finish(); v != 0 || err != nil {
		t.Errorf("union: %d, %v", v, err)
	}
}
