package codec

import (
	"fmt"

	"github.com/lsst-sal/salgo/xml"
)

// Decoder decodes Avro bodies into records of one reader topic. A Codec's
// decoder reads the topic's own schema; NewResolving builds one that reads
// another writer schema. It is safe for concurrent use.
type Decoder struct {
	topic    string
	steps    []step
	defaults []def
	nfields  int
	// nf32 and nf64 are the item counts of the float and double arrays
	// read on the fast path, for one shared backing array per fresh record.
	nf32, nf64 int
	// sc32 and sc64 are the float or int and the double scalars read on
	// the fast path, boxed from slots after the array items (see box.go),
	// and nhdr the arrays read on the fast path, whose slice headers are
	// boxed from one slab.
	sc32, sc64, nhdr int
	// minWire and minWireScalars are the fewest bytes the items boxed
	// from slabs take on the wire: a fresh decode allocates the slabs only
	// if src is that long, so garbage cannot make it allocate more than
	// its length justifies.
	minWire, minWireScalars int
	stats                   issueCounters
}

// step reads one writer field.
type step struct {
	op    stepOp
	name  string // reader field name ("" for stSkip)
	wname string // writer field name, for errors
	n     *node
	skip  *skipper
	str   *lastString // stString: the last value
	array bool        // the reader field is an array (DecodeInto can reuse it)
	// count and maxLen are the reader field's Count (1 for a scalar) and
	// string bound in bytes (0 for none), for Watch.Suspect.
	count, maxLen int
}

type stepOp uint8

const (
	stValue   stepOp = iota // any node
	stDouble                // writer double into a reader double
	stFloat                 // writer float into a reader float
	stInt                   // writer int into a reader int or long (int32)
	stString                // writer string into a reader string
	stFloats                // writer array<float> into a reader float array
	stDoubles               // writer array<double> into a reader double array
	stSkip                  // writer field unknown to the reader
)

// def sets a reader field the writer does not have to its default.
type def struct {
	name string
	n    *node // an opNull node describing the reader field
}

// node reads one writer value as one reader value.
type node struct {
	op nodeOp
	// w is the writer primitive of an opScalar node.
	w prim
	// sal is the reader's scalar or item type.
	sal xml.Type
	// For opNull: the reader field's shape, and its default if scalar.
	array    bool
	count    int
	nullable bool
	zero     any
	item     *node   // opArray: the items
	alts     []*node // opUnion: one node per writer branch
	msg      string  // opBad: why the branch cannot be read
}

type nodeOp uint8

const (
	opScalar nodeOp = iota // read a writer primitive, convert to sal
	opArray                // read a writer array of item
	opUnion                // read a writer union index, then alts[index]
	opNull                 // read nothing; nil if nullable, else the reader default
	opBad                  // a writer union branch the reader cannot read
)

// prim is an Avro primitive type of the writer.
type prim uint8

const (
	pNull prim = iota
	pBool
	pInt
	pLong
	pFloat
	pDouble
	pString
	pBytes
)

var primNames = [...]string{pNull: "null", pBool: "boolean", pInt: "int", pLong: "long",
	pFloat: "float", pDouble: "double", pString: "string", pBytes: "bytes"}

func (p prim) String() string { return primNames[p] }

// primOf returns the writer primitive the reference writes for a SAL type.
func primOf(t xml.Type) prim {
	switch t.Avro() {
	case "boolean":
		return pBool
	case "int":
		return pInt
	case "long":
		return pLong
	case "float":
		return pFloat
	case "double":
		return pDouble
	}
	return pString
}

// shape is the reader's view of a field.
type shape struct {
	sal      xml.Type
	array    bool
	count    int
	nullable bool
}

func shapeOf(f *xml.Field) shape {
	return shape{sal: f.Type, array: f.Count > 1, count: max(f.Count, 1), nullable: f.Nullable}
}

func (r shape) String() string {
	s := r.sal.String()
	if r.array {
		s += fmt.Sprintf("[%d]", r.count)
	}
	if r.nullable {
		s = "null or " + s
	}
	return s
}

func nullNode(r shape) *node {
	n := &node{op: opNull, sal: r.sal, array: r.array, count: r.count, nullable: r.nullable}
	if !r.array {
		n.zero = zeroScalar(r.sal)
	}
	return n
}

func zeroScalar(t xml.Type) any {
	switch t {
	case xml.Boolean:
		return false
	case xml.Byte:
		return uint8(0)
	case xml.Short:
		return int16(0)
	case xml.Int, xml.Long:
		return int32(0)
	case xml.LongLong:
		return int64(0)
	case xml.UnsignedShort:
		return uint16(0)
	case xml.UnsignedInt:
		return uint32(0)
	case xml.Float:
		return float32(0)
	case xml.Double:
		return float64(0)
	}
	return ""
}

// makeStep picks a fast path for the common shapes.
func makeStep(name, wname string, n *node) step {
	s := step{op: stValue, name: name, wname: wname, n: n}
	switch {
	case n.op == opScalar && n.w == pDouble && n.sal == xml.Double:
		s.op = stDouble
	case n.op == opScalar && n.w == pFloat && n.sal == xml.Float:
		s.op = stFloat
	case n.op == opScalar && n.w == pInt && (n.sal == xml.Int || n.sal == xml.Long):
		s.op = stInt
	case n.op == opScalar && n.w == pString && n.sal == xml.String:
		s.op = stString
		s.str = new(lastString)
	case n.op == opArray && n.item.op == opScalar && n.item.w == pFloat && n.sal == xml.Float:
		s.op = stFloats
	case n.op == opArray && n.item.op == opScalar && n.item.w == pDouble && n.sal == xml.Double:
		s.op = stDoubles
	}
	return s
}

// newNativeDecoder builds the decoder of a topic's own schema. The fields
// were checked by New.
func newNativeDecoder(t *xml.Topic, topic string) *Decoder {
	d := &Decoder{topic: topic, nfields: len(t.Fields), steps: make([]step, 0, len(t.Fields))}
	for _, f := range t.Fields {
		r := shapeOf(f)
		var n *node
		if r.array {
			n = &node{op: opArray, sal: r.sal, item: &node{op: opScalar, w: primOf(r.sal), sal: r.sal}}
		} else {
			n = &node{op: opScalar, w: primOf(r.sal), sal: r.sal}
		}
		if r.nullable {
			n = &node{op: opUnion, alts: []*node{nullNode(r), n}}
		}
		d.addStep(makeStep(f.Name, f.Name, n), f)
	}
	return d
}

// addStep appends st, the step of reader field f.
func (d *Decoder) addStep(st step, f *xml.Field) {
	count := shapeOf(f).count
	switch st.op {
	case stFloats:
		d.nf32 += count
		d.nhdr++
		d.minWire += 4 * count
	case stDoubles:
		d.nf64 += count
		d.nhdr++
		d.minWire += 8 * count
	case stFloat:
		d.sc32++
		d.minWire += 4
		d.minWireScalars += 4
	case stInt:
		d.sc32++
		d.minWire++
		d.minWireScalars++
	case stDouble:
		d.sc64++
		d.minWire += 8
		d.minWireScalars += 8
	case stValue:
		// A scalar read by value() is boxed from the slabs too; any
		// writer value takes at least a byte.
		if st.n.op == opScalar {
			switch st.n.sal {
			case xml.Short, xml.UnsignedShort, xml.UnsignedInt, xml.Int, xml.Long, xml.Float:
				d.sc32++
				d.minWire++
				d.minWireScalars++
			case xml.LongLong, xml.Double:
				d.sc64++
				d.minWire++
				d.minWireScalars++
			}
		}
	}
	st.array, st.count, st.maxLen = count > 1, count, f.MaxLen()
	d.steps = append(d.steps, st)
}
