package wire_test

import (
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/topics/wire"
)

// The records below are what cmd/salgen generates for the embedded
// Example component's scalars and arrays topics, written by hand: the
// allocation tests and benchmarks use them.

type exScalars struct {
	topics.Private
	Boolean0       bool
	Byte0          uint8
	Short0         int16
	Int0           int32
	Long0          int32
	LongLong0      int64
	UnsignedShort0 uint16
	UnsignedInt0   uint32
	Float0         float32
	Double0        float64
	String0        string
}

func (r *exScalars) AppendAvro(dst []byte) []byte {
	dst = topics.AppendPrivate(dst, &r.Private, true)
	dst = wire.AppendBool(dst, r.Boolean0)
	dst = wire.AppendInt(dst, int32(r.Byte0))
	dst = wire.AppendInt(dst, int32(r.Short0))
	dst = wire.AppendInt(dst, r.Int0)
	dst = wire.AppendInt(dst, r.Long0)
	dst = wire.AppendLong(dst, r.LongLong0)
	dst = wire.AppendInt(dst, int32(r.UnsignedShort0))
	dst = wire.AppendLong(dst, int64(r.UnsignedInt0))
	dst = wire.AppendFloat(dst, r.Float0)
	dst = wire.AppendDouble(dst, r.Double0)
	return wire.AppendString(dst, r.String0)
}

func (r *exScalars) DecodeAvro(src []byte) (int, error) {
	var d wire.Decoder
	d.Reset("Example.scalars", src)
	topics.DecodePrivate(&d, &r.Private, true)
	r.Boolean0 = d.Bool("boolean0")
	r.Byte0 = d.Byte("byte0")
	r.Short0 = d.Short("short0")
	r.Int0 = d.Int("int0")
	r.Long0 = d.Int("long0")
	r.LongLong0 = d.Long("longLong0")
	r.UnsignedShort0 = d.UShort("unsignedShort0")
	r.UnsignedInt0 = d.UInt("unsignedInt0")
	r.Float0 = d.Float("float0")
	r.Double0 = d.Double("double0")
	r.String0 = d.String("string0", r.String0, 20)
	return d.Finish()
}

type exArrays struct {
	topics.Private
	Boolean0       [5]bool
	Byte0          [5]uint8
	Short0         [5]int16
	Int0           [5]int32
	Long0          [5]int32
	LongLong0      [5]int64
	UnsignedShort0 [5]uint16
	UnsignedInt0   [5]uint32
	Float0         [5]float32
	Double0        [5]float64
}

func (r *exArrays) AppendAvro(dst []byte) []byte {
	dst = topics.AppendPrivate(dst, &r.Private, true)
	dst = wire.AppendBools(dst, r.Boolean0[:])
	dst = wire.AppendBytes(dst, r.Byte0[:])
	dst = wire.AppendShorts(dst, r.Short0[:])
	dst = wire.AppendInts(dst, r.Int0[:])
	dst = wire.AppendInts(dst, r.Long0[:])
	dst = wire.AppendLongs(dst, r.LongLong0[:])
	dst = wire.AppendUShorts(dst, r.UnsignedShort0[:])
	dst = wire.AppendUInts(dst, r.UnsignedInt0[:])
	dst = wire.AppendFloats(dst, r.Float0[:])
	return wire.AppendDoubles(dst, r.Double0[:])
}

func (r *exArrays) DecodeAvro(src []byte) (int, error) {
	var d wire.Decoder
	d.Reset("Example.arrays", src)
	topics.DecodePrivate(&d, &r.Private, true)
	d.Bools("boolean0", r.Boolean0[:])
	d.Bytes("byte0", r.Byte0[:])
	d.Shorts("short0", r.Short0[:])
	d.Ints("int0", r.Int0[:])
	d.Ints("long0", r.Long0[:])
	d.Longs("longLong0", r.LongLong0[:])
	d.UShorts("unsignedShort0", r.UnsignedShort0[:])
	d.UInts("unsignedInt0", r.UnsignedInt0[:])
	d.Floats("float0", r.Float0[:])
	d.Doubles("double0", r.Double0[:])
	return d.Finish()
}
