package topics

import (
	"github.com/lsst-sal/salgo/topics/wire"
	"github.com/lsst-sal/salgo/validate"
	"github.com/lsst-sal/salgo/xml"
)

// AppendPrivate appends p as the header a SAL record's Avro body starts
// with: salIndex when indexed (the component is indexed), then the
// eight private_ fields, in the schema's order. The records cmd/salgen
// generates call it and its three kin (DecodePrivate, PrivateToMap,
// PrivateFromMap) instead of repeating those fields in each method; an
// application has no use for them. (A topic whose schema puts the private
// fields elsewhere, as some of MTCamera's .avsc topics do, has them
// inline in its generated code.)
func AppendPrivate(dst []byte, p *Private, indexed bool) []byte {
	if indexed {
		dst = wire.AppendInt(dst, p.SalIndex)
	}
	dst = wire.AppendDouble(dst, p.SndStamp)
	dst = wire.AppendDouble(dst, p.RcvStamp)
	dst = wire.AppendDouble(dst, p.EfdStamp)
	dst = wire.AppendDouble(dst, p.KafkaStamp)
	dst = wire.AppendInt(dst, p.SeqNum)
	dst = wire.AppendString(dst, p.RevCode)
	dst = wire.AppendString(dst, p.Identity)
	return wire.AppendInt(dst, p.Origin)
}

// DecodePrivate decodes the header of a record's Avro body into p, from
// d's position; errors are d's, as for the record's other fields.
func DecodePrivate(d *wire.Decoder, p *Private, indexed bool) {
	if indexed {
		p.SalIndex = d.Int("salIndex")
	}
	p.SndStamp = d.Double("private_sndStamp")
	p.RcvStamp = d.Double("private_rcvStamp")
	p.EfdStamp = d.Double("private_efdStamp")
	p.KafkaStamp = d.Double("private_kafkaStamp")
	p.SeqNum = d.Int("private_seqNum")
	p.RevCode = d.String("private_revCode", p.RevCode, 0)
	p.Identity = d.String("private_identity", p.Identity, 0)
	p.Origin = d.Int("private_origin")
}

// PrivateToMap stores p's fields in dst under their SAL names (salIndex
// only when indexed).
func PrivateToMap(dst map[string]any, p *Private, indexed bool) {
	if indexed {
		dst["salIndex"] = p.SalIndex
	}
	dst["private_sndStamp"] = p.SndStamp
	dst["private_rcvStamp"] = p.RcvStamp
	dst["private_efdStamp"] = p.EfdStamp
	dst["private_kafkaStamp"] = p.KafkaStamp
	dst["private_seqNum"] = p.SeqNum
	dst["private_revCode"] = p.RevCode
	dst["private_identity"] = p.Identity
	dst["private_origin"] = p.Origin
}

// PrivateFromMap sets p from a map record's fields, as Record.FromMap
// does its own, adding a wrong type's error to e.
func PrivateFromMap(e *validate.Fields, src map[string]any, p *Private, indexed bool) {
	if indexed {
		validate.Get(e, src, "salIndex", xml.Long, &p.SalIndex)
	}
	validate.Get(e, src, "private_sndStamp", xml.Double, &p.SndStamp)
	validate.Get(e, src, "private_rcvStamp", xml.Double, &p.RcvStamp)
	validate.Get(e, src, "private_efdStamp", xml.Double, &p.EfdStamp)
	validate.Get(e, src, "private_kafkaStamp", xml.Double, &p.KafkaStamp)
	validate.Get(e, src, "private_seqNum", xml.Long, &p.SeqNum)
	validate.Get(e, src, "private_revCode", xml.String, &p.RevCode)
	validate.Get(e, src, "private_identity", xml.String, &p.Identity)
	validate.Get(e, src, "private_origin", xml.Long, &p.Origin)
}
