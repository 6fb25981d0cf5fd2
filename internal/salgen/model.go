package salgen

import (
	"fmt"
	"go/token"
	"math"
	"strings"

	salxml "github.com/lsst-sal/salgo/xml"
)

// pkg is everything the files of one generated package are written from,
// with every Go name chosen.
type pkg struct {
	comp    *salxml.Component
	name    string // the package name
	version string
	records []*record
	enums   []*enum
	// retCode names SalRetCode, the generic ack codes' alias, and its
	// constants (label: the topics constant each stands for).
	retCode  string
	retCodes []enumConst
}

// record is one topic's struct.
type record struct {
	t        *salxml.Topic
	typeName string
	varName  string // the *topics.RecordType variable
	private  []*field
	// header says the wire starts with the standard header (salIndex on
	// indexed components, then the eight private_ fields in their usual
	// order and types), which the topics.*Private functions encode.
	header bool
	fields []*field
	wire   []*field // every field, in the topic's (wire) order
	// Names of its accessor or command method on Remote, CSC and
	// Controller, and of its handler on CSC and Controller.
	remoteName, cscName, ctrlName string
	cscHandler, ctrlHandler       string
	fieldName                     string // unexported field of Remote/CSC/Controller holding its reader or writer
}

// field is one field of a record.
type field struct {
	f      *salxml.Field
	goName string // "Boolean0", or "Private.SndStamp" for a private field
	goType string // the scalar Go type: bool, uint8, ...
	// wire names the topics/wire functions: Append<scalar>, Append<array>,
	// Decoder.<dec> and Decoder.<array>.
	scalar, array, dec string
	conv               string // conversion of the value for Append<scalar>, or ""
}

// enum is one enumeration's Go type.
type enum struct {
	e        *salxml.Enumeration
	typeName string
	goType   string // int32 or int64
	doc      string
	consts   []enumConst
}

type enumConst struct {
	name  string // Go constant
	label string // String()'s text
	value int64
}

type typeInfo struct{ goType, scalar, array, dec, conv string }

var types = map[salxml.Type]typeInfo{
	salxml.Boolean:       {"bool", "Bool", "Bools", "Bool", ""},
	salxml.Byte:          {"uint8", "Int", "Bytes", "Byte", "int32"},
	salxml.Short:         {"int16", "Int", "Shorts", "Short", "int32"},
	salxml.Int:           {"int32", "Int", "Ints", "Int", ""},
	salxml.Long:          {"int32", "Int", "Ints", "Int", ""},
	salxml.LongLong:      {"int64", "Long", "Longs", "Long", ""},
	salxml.UnsignedShort: {"uint16", "Int", "UShorts", "UShort", "int32"},
	salxml.UnsignedInt:   {"uint32", "Long", "UInts", "UInt", "int64"},
	salxml.Float:         {"float32", "Float", "Floats", "Float", ""},
	salxml.Double:        {"float64", "Double", "Doubles", "Double", ""},
	salxml.String:        {"string", "String", "", "String", ""},
}

// privateNames maps the private fields to their topics.Private fields.
var privateNames = map[string]string{
	"salIndex":           "SalIndex",
	"private_sndStamp":   "SndStamp",
	"private_rcvStamp":   "RcvStamp",
	"private_efdStamp":   "EfdStamp",
	"private_kafkaStamp": "KafkaStamp",
	"private_seqNum":     "SeqNum",
	"private_revCode":    "RevCode",
	"private_identity":   "Identity",
	"private_origin":     "Origin",
}

// standardHeader says whether r's wire starts with the standard header
// (xml.PrivateFields: what topics.AppendPrivate and its kin
// encode) and has no other private field.
func standardHeader(r *record) bool {
	want := salxml.PrivateFields(r.t.Indexed)
	if len(r.private) != len(want) || len(r.wire) < len(want) {
		return false
	}
	for i, h := range want {
		if f := r.wire[i].f; f.Name != h.Name || f.Type != h.Type || !plainScalar(f) {
			return false
		}
	}
	return true
}

// plainScalar says f is a single value, not null, with no length bound.
func plainScalar(f *salxml.Field) bool { return !f.IsArray() && !f.Nullable && f.MaxLen() == 0 }

// kindPrefix is the prefix of a topic's type name, and of its accessor
// when the bare type name is taken.
func kindPrefix(k salxml.Kind) string {
	switch k {
	case salxml.Command:
		return "Cmd"
	case salxml.Event:
		return "Evt"
	case salxml.Telemetry:
		return "Tel"
	}
	return "Ack"
}

func newField(t *salxml.Topic, f *salxml.Field, goName string) (*field, error) {
	ti, ok := types[f.Type]
	if !ok {
		return nil, fmt.Errorf("salgen: %s: field %s: unknown type %v", t, f.Name, f.Type)
	}
	if f.Nullable && f.IsArray() && f.Type != salxml.String {
		return nil, fmt.Errorf("salgen: %s: field %s: nullable arrays are not supported", t, f.Name)
	}
	return &field{f: f, goName: goName, goType: ti.goType, scalar: ti.scalar, array: ti.array, dec: ti.dec, conv: ti.conv}, nil
}

// isArray says whether the field is a Go array (strings never are).
func (f *field) isArray() bool { return f.f.IsArray() && f.f.Type != salxml.String }

// plan chooses every name of the package for comp.
func plan(comp *salxml.Component, version string) (*pkg, error) {
	p := &pkg{comp: comp, name: PackageName(comp.Name), version: version}
	if !isIdent(p.name) {
		return nil, fmt.Errorf("salgen: component %s: %q is not a valid package name", comp.Name, p.name)
	}
	global := newNamer(packageNames)
	for _, t := range comp.Topics {
		var name string
		switch t.Kind {
		case salxml.Telemetry:
			name = exported(t.Name())
		case salxml.Ack:
			name = "Ackcmd"
		default:
			name = kindPrefix(t.Kind) + exported(t.Name())
		}
		r := &record{t: t, typeName: global.take(name)}
		r.varName = "type" + r.typeName
		r.fieldName = "rec" + r.typeName
		fields := newNamer(recordMethods)
		for _, f := range t.Fields {
			if f.Private {
				pn, ok := privateNames[f.Name]
				if !ok {
					return nil, fmt.Errorf("salgen: %s: unknown private field %s", t, f.Name)
				}
				fd, err := newField(t, f, "Private."+pn)
				if err != nil {
					return nil, err
				}
				r.private = append(r.private, fd)
				r.wire = append(r.wire, fd)
				continue
			}
			fd, err := newField(t, f, fields.take(exported(f.Name)))
			if err != nil {
				return nil, err
			}
			r.fields = append(r.fields, fd)
			r.wire = append(r.wire, fd)
		}
		r.header = standardHeader(r)
		p.records = append(p.records, r)
	}
	// Enumerations: the file-level ones, then the field-level ones.
	for _, e := range comp.Enumerations {
		if e.Class == "" {
			continue
		}
		p.enums = append(p.enums, newEnum(global, e, exported(e.Class), e.Class+"_",
			fmt.Sprintf("%s is the enumeration %s of %s.", exported(e.Class), e.Class, comp.Name)))
	}
	// The generic enumerations of SALGenerics.xml, unless the component
	// defines a class of the same name (MTM1M3, MTM1M3TS and MTVMS have
	// their own SummaryStates).
	own := map[string]bool{}
	for _, e := range comp.Enumerations {
		own[e.Class] = true
	}
	for _, e := range comp.GenericEnumerations {
		if e.Class == "" || own[e.Class] {
			continue
		}
		doc := fmt.Sprintf("%s is the generic enumeration %s of SALGenerics.xml.", exported(e.Class), e.Class)
		if e.Class == "SummaryStates" {
			doc = "SummaryStates is the generic enumeration SummaryStates of SALGenerics.xml,\n" +
				"// the summaryState event's values. They are controller.State's (sal.State):\n" +
				"// controller.State(SummaryStatesEnabledState) is controller.Enabled."
		}
		p.enums = append(p.enums, newEnum(global, e, exported(e.Class), e.Class+"_", doc))
	}
	// The generic ack codes, which ts_xml's Python package (not its XML)
	// defines as sal_enums.SalRetCode; here an alias of topics.AckCode.
	p.retCode = global.take("SalRetCode")
	for _, c := range retCodes {
		p.retCodes = append(p.retCodes, enumConst{name: global.take(p.retCode + c), label: c})
	}
	for _, r := range p.records {
		for _, f := range r.fields {
			if f.f.Enumeration == nil {
				continue
			}
			e := f.f.Enumeration
			name := r.typeName + f.goName
			p.enums = append(p.enums, newEnum(global, e, name, fieldEnumPrefix(e),
				fmt.Sprintf("%s is the enumeration of field %s of %s.", name, f.f.Name, r.t)))
		}
	}
	p.accessors()
	return p, nil
}

// retCodes are the topics constants of the command acknowledgement codes,
// ts_xml's sal_enums.SalRetCode CMD_ACK … CMD_TIMEOUT in their order.
var retCodes = []string{"CmdAck", "CmdInProgress", "CmdStalled", "CmdComplete",
	"CmdNoPerm", "CmdNoAck", "CmdFailed", "CmdAborted", "CmdTimeout"}

// fieldEnumPrefix returns the prefix a field-level enumeration's entries
// share and that is dropped from their names: the text up to the first
// "_" when every entry has the same one and it is not in capitals
// ("gratingType_Grating_Blue", "CSys_ICRS", "Int0Enum_One"); otherwise
// none ("OFFLINE_AVAILABLE", "PLUS_X").
func fieldEnumPrefix(e *salxml.Enumeration) string {
	prefix := ""
	for i, en := range e.Entries {
		k := strings.IndexByte(en.Name, '_')
		if k <= 0 || k == len(en.Name)-1 {
			return ""
		}
		if i == 0 {
			prefix = en.Name[:k+1]
		} else if en.Name[:k+1] != prefix {
			return ""
		}
	}
	if strings.ToUpper(prefix) == prefix {
		return ""
	}
	return prefix
}

func newEnum(global namer, e *salxml.Enumeration, name, prefix, doc string) *enum {
	en := &enum{e: e, typeName: global.take(name), goType: "int32", doc: doc}
	for _, x := range e.Entries {
		if x.Value < math.MinInt32 || x.Value > math.MaxInt32 {
			en.goType = "int64"
		}
		label := strings.TrimPrefix(x.Name, prefix)
		en.consts = append(en.consts, enumConst{name: global.take(en.typeName + camel(label)), label: label, value: x.Value})
	}
	return en
}

// accessors names the methods of Remote, CSC and Controller.
func (p *pkg) accessors() {
	rem := newNamer(remoteMethods, []string{"Remote"})
	csc := newNamer(cscMethods, []string{"CSC"})
	ctrl := newNamer(controllerMethods, []string{"Controller"})
	name := func(n namer, r *record) string {
		if n[r.typeName] {
			return n.take(kindPrefix(r.t.Kind) + r.typeName)
		}
		return n.take(r.typeName)
	}
	for _, r := range p.records {
		switch r.t.Kind {
		case salxml.Event, salxml.Telemetry:
			r.remoteName, r.cscName, r.ctrlName = name(rem, r), name(csc, r), name(ctrl, r)
		}
	}
	for _, r := range p.records {
		if r.t.Kind != salxml.Command {
			continue
		}
		r.remoteName = name(rem, r)
		h := "Handle" + exported(r.t.Name())
		if !r.t.Generic {
			r.cscHandler = takeHandler(csc, h, r)
		}
		r.ctrlHandler = takeHandler(ctrl, h, r)
	}
}

func takeHandler(n namer, h string, r *record) string {
	if n[h] {
		return n.take("HandleCmd" + exported(r.t.Name()))
	}
	return n.take(h)
}

func isIdent(s string) bool {
	if s == "" || exported(s) != strings.ToUpper(s[:1])+s[1:] {
		return false
	}
	return !token.IsKeyword(s)
}
