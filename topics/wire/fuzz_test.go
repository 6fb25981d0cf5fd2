package wire_test

import (
	"testing"
)

// FuzzDecoder decodes arbitrary bytes as the Example scalars (first byte
// even) or arrays (odd) field sequence with wire and with the map codec:
// they must agree on failure, with the same error text, and on success on
// every value, NaN bits included (compare).
func FuzzDecoder(f *testing.F) {
	for i, name := range []string{"scalars", "arrays"} {
		top, c := exampleTopic(f, name)
		for _, rec := range exampleRecords(top) {
			src, err := c.Append(nil, rec)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(append([]byte{byte(i)}, src...))
			f.Add(append([]byte{byte(i)}, src[:len(src)/2]...))
		}
	}
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01})
	names := [2]string{"scalars", "arrays"}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		top, c := exampleTopic(t, names[data[0]&1])
		compare(t, top, c, data[1:])
	})
}
