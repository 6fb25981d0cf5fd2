package wire_test

import (
	"fmt"
	"math"

	"github.com/lsst-sal/salgo/topics/wire"
)

// A record of three fields, a double, a bounded string and an array of
// three shorts, encoded and decoded as generated code does it.
func Example_roundTrip() {
	body := wire.AppendDouble(nil, math.NaN())
	body = wire.AppendString(body, "hello")
	body = wire.AppendShorts(body, []int16{1, -2, 3, 4}) // one item too many
	fmt.Printf("% x\n", body)

	var (
		d     wire.Decoder
		x     float64
		s     string
		short [3]int16
	)
	d.Reset("Example.demo", body)
	x = d.Double("x")
	s = d.String("s", s, 20)
	d.Shorts("short", short[:])
	violations, err := d.Finish()
	fmt.Printf("%x %q %v, %d violation, %v\n", math.Float64bits(x), s, short, violations, err)

	// The same body cut short: the error names the field and the offset.
	d.Reset("Example.demo", body[:10])
	d.Double("x")
	d.String("s", s, 20)
	_, err = d.Finish()
	fmt.Println(err)
	// Output:
	// 00 00 00 00 00 00 f8 7f 0a 68 65 6c 6c 6f 08 02 03 06 08 00
	// 7ff8000000000000 "hello" [1 -2 3], 1 violation, <nil>
	// codec: Example.demo: field s at byte 9: truncated input
}
