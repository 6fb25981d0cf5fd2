package codec_test

import (
	"fmt"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/xml"
)

func ExampleCodec() {
	t := &xml.Topic{Component: "Test", SALName: "scalars", Fields: []*xml.Field{
		{Name: "private_seqNum", Type: xml.Long, Count: 1},
		{Name: "position", Type: xml.Double, Count: 3},
		{Name: "mode", Type: xml.Byte, Count: 1},
	}}
	c, err := codec.New(t)
	if err != nil {
		panic(err)
	}
	rec := map[string]any{"private_seqNum": int32(7), "position": []float64{1, 2, 3}, "mode": uint8(2)}
	msg := codec.AppendHeader(make([]byte, 0, codec.HeaderLen+c.SizeHint()), 42)
	msg, err = c.Append(msg, rec)
	if err != nil {
		panic(err)
	}

	id, body, err := codec.SplitHeader(msg)
	if err != nil {
		panic(err)
	}
	got, err := c.Decode(body)
	fmt.Println(id, len(body), got["position"], got["mode"], err)
	// Output: 42 28 [1 2 3] 2 <nil>
}

func ExampleNewResolving() {
	// Version 1 of the topic had an int "count"; version 2 made it a long
	// long and added "label".
	v1 := `{"type": "record", "name": "status", "namespace": "lsst.sal.Test", "fields": [
		{"name": "count", "type": "int", "default": 0}]}`
	v2 := &xml.Topic{Component: "Test", SALName: "status", Fields: []*xml.Field{
		{Name: "count", Type: xml.LongLong, Count: 1},
		{Name: "label", Type: xml.String, Count: 1},
	}}
	d, err := codec.NewResolving(v1, v2)
	if err != nil {
		panic(err)
	}
	rec, err := d.Decode([]byte{0x54}) // count = 42 as an Avro int
	fmt.Printf("%T %v %q %v\n", rec["count"], rec["count"], rec["label"], err)
	// Output: int64 42 "" <nil>
}
