package xml

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Kind is the kind of a SAL topic.
type Kind int

// The topic kinds. Ack is the one ackcmd topic every component has.
const (
	Command Kind = iota + 1
	Event
	Telemetry
	Ack
)

// String returns "command", "event", "telemetry" or "ackcmd".
func (k Kind) String() string {
	switch k {
	case Command:
		return "command"
	case Event:
		return "event"
	case Telemetry:
		return "telemetry"
	case Ack:
		return "ackcmd"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Type is a SAL (IDL) field type. Each has one Avro type and one canonical
// Go type (see the validate package).
type Type int

// The eleven SAL types of ts_xml.
const (
	Boolean       Type = iota + 1 // Avro boolean; Go bool
	Byte                          // Avro int; Go uint8
	Short                         // Avro int; Go int16
	Int                           // Avro int; Go int32
	Long                          // Avro int (SAL long is 32 bits); Go int32
	LongLong                      // Avro long; Go int64
	UnsignedShort                 // Avro int; Go uint16
	UnsignedInt                   // Avro long; Go uint32
	Float                         // Avro float; Go float32
	Double                        // Avro double; Go float64
	String                        // Avro string; Go string
)

var typeNames = [...]string{
	Boolean:       "boolean",
	Byte:          "byte",
	Short:         "short",
	Int:           "int",
	Long:          "long",
	LongLong:      "long long",
	UnsignedShort: "unsigned short",
	UnsignedInt:   "unsigned int",
	Float:         "float",
	Double:        "double",
	String:        "string",
}

var avroTypes = [...]string{
	Boolean:       "boolean",
	Byte:          "int",
	Short:         "int",
	Int:           "int",
	Long:          "int",
	LongLong:      "long",
	UnsignedShort: "int",
	UnsignedInt:   "long",
	Float:         "float",
	Double:        "double",
	String:        "string",
}

// String returns the IDL_Type spelling, e.g. "long long".
func (t Type) String() string {
	if t >= Boolean && t <= String {
		return typeNames[t]
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// Avro returns the Avro primitive type name the reference maps t to.
func (t Type) Avro() string {
	if t >= Boolean && t <= String {
		return avroTypes[t]
	}
	return ""
}

// ParseType parses an IDL_Type text; it accepts exactly the 11 ts_xml names.
func ParseType(s string) (Type, bool) {
	for t := Boolean; t <= String; t++ {
		if typeNames[t] == s {
			return t, true
		}
	}
	return 0, false
}

// EnumEntry is one name of an enumeration and its value.
type EnumEntry struct {
	Name  string
	Value int64
}

// Enumeration is an XML <Enumeration>: file level (Class set, e.g.
// "ErrorCode") or field level (Class empty).
type Enumeration struct {
	// Class is the text before the first "_" of every entry of a
	// file-level enumeration; empty for field-level enumerations.
	Class string
	// Entries in document order. Without explicit values they are
	// numbered 1, 2, 3, ...
	Entries []EnumEntry
	// Explicit reports whether the values were written in the XML.
	Explicit bool
	// File and Line locate the element.
	File string
	Line int
}

// Lookup returns the value of the entry with the given name.
func (e *Enumeration) Lookup(name string) (int64, bool) {
	for _, en := range e.Entries {
		if en.Name == name {
			return en.Value, true
		}
	}
	return 0, false
}

// Field is one field of a topic.
type Field struct {
	Name string
	Type Type
	// Count is 1 for a scalar and the fixed length of an array otherwise.
	Count int
	// Size is the IDL_Size of a string: its bound in bytes. 0 or 1 means
	// unbounded. Always 0 for other types.
	Size        int
	Units       string
	Description string
	// Enumeration is the field-level enumeration, if any.
	Enumeration *Enumeration
	// Private is true for salIndex and the private_* fields.
	Private bool
	// Nullable is true for the ["null", T] union fields of the camera
	// .avsc topics; their value may be nil.
	Nullable bool
	// NoDefault is true for .avsc fields declared without a default.
	NoDefault bool
	// Line is the source line of the field (0 for generated fields).
	Line int
}

// IsArray reports whether the field is a fixed-length array (Count > 1).
func (f *Field) IsArray() bool { return f.Count > 1 }

// MaxLen returns the string bound in bytes, or 0 if unbounded.
func (f *Field) MaxLen() int {
	if f.Type == String && f.Size > 1 {
		return f.Size
	}
	return 0
}

// Topic is one SAL topic of one component, with every field of its Avro
// record (private fields included) in wire order.
type Topic struct {
	Component string
	// SALName is the SAL topic name: "command_X", "logevent_X",
	// "ackcmd", or the bare telemetry name.
	SALName     string
	Kind        Kind
	Description string
	Fields      []*Field
	// Indexed is true when the component is indexed (salIndex present).
	Indexed bool
	// Generic is true for topics merged in from SALGenerics.xml.
	Generic bool
	// FromAvro is true for the camera topics read from .avsc files.
	FromAvro bool
	// Namespace of the Avro record ("lsst.sal.<Component>").
	Namespace string
	// File and Line locate the topic's definition ("" for ackcmd).
	File string
	Line int

	byName map[string]int
	once   sync.Once
	schema string
	rev    string
	// avscRaw holds the ordered top-level object of an .avsc file, used to
	// render its schema text.
	avscRaw jobj
}

// Name returns the topic name without its kind prefix: "setScalars" for
// "command_setScalars", "summaryState" for "logevent_summaryState".
func (t *Topic) Name() string {
	switch {
	case strings.HasPrefix(t.SALName, "command_"):
		return t.SALName[len("command_"):]
	case strings.HasPrefix(t.SALName, "logevent_"):
		return t.SALName[len("logevent_"):]
	}
	return t.SALName
}

// AttrName returns the salobj attribute name: cmd_X, evt_X, tel_X or
// ack_ackcmd.
func (t *Topic) AttrName() string {
	switch t.Kind {
	case Command:
		return "cmd_" + t.Name()
	case Event:
		return "evt_" + t.Name()
	case Ack:
		return "ack_ackcmd"
	}
	return "tel_" + t.SALName
}

// KafkaName returns the Kafka topic name lsst.<subname>.<Component>.<SALName>.
func (t *Topic) KafkaName(subname string) string {
	return "lsst." + subname + "." + t.Component + "." + t.SALName
}

// Subject returns the schema registry subject: the Kafka name plus "-value".
func (t *Topic) Subject(subname string) string {
	return t.KafkaName(subname) + "-value"
}

// Key returns the message key the reference writes for this topic from a
// writer with the given SAL index: empty for telemetry, otherwise
// `{ "name": "C", "topic": "salName" }` with `"index": N` between them for
// indexed components.
func (t *Topic) Key(index int) string {
	if t.Kind == Telemetry {
		return ""
	}
	if t.Indexed {
		return `{ "name": "` + t.Component + `", "index": ` + strconv.Itoa(index) + `, "topic": "` + t.SALName + `" }`
	}
	return `{ "name": "` + t.Component + `", "topic": "` + t.SALName + `" }`
}

// Field returns the field with the given name, or nil.
func (t *Topic) Field(name string) *Field {
	if i, ok := t.FieldIndex(name); ok {
		return t.Fields[i]
	}
	return nil
}

// FieldIndex returns the position of the named field in Fields.
func (t *Topic) FieldIndex(name string) (int, bool) {
	if t.byName == nil {
		for i, f := range t.Fields {
			if f.Name == name {
				return i, true
			}
		}
		return 0, false
	}
	i, ok := t.byName[name]
	return i, ok
}

// UserFields returns the fields that are not private, in order.
func (t *Topic) UserFields() []*Field {
	out := make([]*Field, 0, len(t.Fields))
	for _, f := range t.Fields {
		if !f.Private {
			out = append(out, f)
		}
	}
	return out
}

// String returns "Component.salName".
func (t *Topic) String() string { return t.Component + "." + t.SALName }

func (t *Topic) index() {
	t.byName = make(map[string]int, len(t.Fields))
	for i, f := range t.Fields {
		t.byName[f.Name] = i
	}
}

// AvroSchema returns the topic's Avro schema text exactly as the reference
// registers it: Python's json.dumps of the schema dict.
func (t *Topic) AvroSchema() string {
	t.once.Do(t.render)
	return t.schema
}

// RevCode returns the reference revCode: the first 8 hex digits of the MD5
// of the schema rendered by json.dumps(schema, indent=4).
func (t *Topic) RevCode() string {
	t.once.Do(t.render)
	return t.rev
}

// Component is one SAL component with its merged topics.
type Component struct {
	Name        string
	Description string
	// IndexEnumeration is the raw SALSubsystems.xml text.
	IndexEnumeration string
	// Indexed is true unless IndexEnumeration is "no".
	Indexed bool
	// IndexNames lists the named SAL indices (e.g. CameraHexapod=1), if any.
	IndexNames []EnumEntry
	// AddedGenerics as listed in SALSubsystems.xml, trimmed.
	AddedGenerics []string
	// Topics in the reference order: generics (mandatory, then each
	// AddedGenerics entry), own commands, events, telemetry, ackcmd, then
	// the .avsc topics.
	Topics []*Topic
	// Enumerations are the file-level enumerations of the component's files.
	Enumerations []*Enumeration
	// GenericEnumerations are the file-level enumerations of
	// SALGenerics.xml (in ts_xml 28, SummaryStates: the values of
	// logevent_summaryState's summaryState), which every component's
	// generic topics share. Components share the values; do not modify them.
	GenericEnumerations []*Enumeration

	byName map[string]*Topic
}

// Topic returns the topic with the given SAL name ("command_start",
// "logevent_heartbeat", "ackcmd", "scalars"), or nil.
func (c *Component) Topic(salName string) *Topic { return c.byName[salName] }

// Command returns the command topic with the given bare name, or nil.
func (c *Component) Command(name string) *Topic { return c.byName["command_"+name] }

// Event returns the event topic with the given bare name, or nil.
func (c *Component) Event(name string) *Topic { return c.byName["logevent_"+name] }

// Telemetry returns the telemetry topic with the given name, or nil.
func (c *Component) Telemetry(name string) *Topic {
	if t := c.byName[name]; t != nil && t.Kind == Telemetry {
		return t
	}
	return nil
}

// Ack returns the ackcmd topic.
func (c *Component) Ack() *Topic { return c.byName["ackcmd"] }

// TopicsOf returns the topics of one kind in reference order.
func (c *Component) TopicsOf(k Kind) []*Topic {
	var out []*Topic
	for _, t := range c.Topics {
		if t.Kind == k {
			out = append(out, t)
		}
	}
	return out
}

// CommandNames returns the bare command names sorted as Python sorts
// strings (by code point), the order that fixes each command's slice of
// sequence numbers.
func (c *Component) CommandNames() []string {
	var out []string
	for _, t := range c.Topics {
		if t.Kind == Command {
			out = append(out, t.Name())
		}
	}
	sort.Strings(out)
	return out
}

// SALTopicNames returns every SAL topic name of the component, sorted; the
// position of a command in it is the cmdtype of its acks.
func (c *Component) SALTopicNames() []string {
	out := make([]string, 0, len(c.Topics))
	for _, t := range c.Topics {
		out = append(out, t.SALName)
	}
	sort.Strings(out)
	return out
}

// CmdType returns the cmdtype the reference writes in acks of the command
// with the given SAL name: its index in SALTopicNames, or -1.
func (c *Component) CmdType(salName string) int {
	names := c.SALTopicNames()
	i := sort.SearchStrings(names, salName)
	if i < len(names) && names[i] == salName {
		return i
	}
	return -1
}

// NameIndex returns "Name" for index 0 and "Name:index" otherwise.
func (c *Component) NameIndex(index int) string {
	if index == 0 {
		return c.Name
	}
	return c.Name + ":" + strconv.Itoa(index)
}

// CheckIndex reports an error if index is not valid for the component:
// negative, or non-zero for a non-indexed component.
func (c *Component) CheckIndex(index int) error {
	if index < 0 {
		return fmt.Errorf("xml: component %s: SAL index %d is negative", c.Name, index)
	}
	if index != 0 && !c.Indexed {
		return fmt.Errorf("xml: component %s is not indexed: SAL index must be 0, not %d", c.Name, index)
	}
	return nil
}

func (c *Component) add(t *Topic) error {
	if c.byName == nil {
		c.byName = make(map[string]*Topic)
	}
	if old, ok := c.byName[t.SALName]; ok {
		return fmt.Errorf("duplicate topic %s (first defined at %s:%d)", t.SALName, old.File, old.Line)
	}
	c.byName[t.SALName] = t
	c.Topics = append(c.Topics, t)
	return nil
}

// ErrUnknownTopic is matched by the error of FindTopic.
var ErrUnknownTopic = errors.New("unknown SAL topic")

// FindTopic returns the topic named by its SAL name (logevent_x,
// command_x, a telemetry name, ackcmd) or its salobj attribute name (evt_x,
// cmd_x, tel_x, ack_ackcmd); the error for an unknown name lists the close
// matches.
func (c *Component) FindTopic(name string) (*Topic, error) {
	if t := c.byName[name]; t != nil {
		return t, nil
	}
	var cands []string
	for _, t := range c.Topics {
		if t.AttrName() == name {
			return t, nil
		}
		cands = append(cands, t.SALName, t.AttrName())
	}
	if cl := Closest(name, cands); len(cl) > 0 {
		return nil, fmt.Errorf("xml: %w: %s has no topic %q (did you mean %s?)", ErrUnknownTopic, c.Name, name, strings.Join(cl, ", "))
	}
	return nil, fmt.Errorf("xml: %w: %s has no topic %q (%d topics)", ErrUnknownTopic, c.Name, name, len(c.Topics))
}

// Lookup returns the topic of kind k named by its bare name
// ("summaryState", "setScalars", "forceActuatorData"), its SAL name
// (logevent_summaryState, command_setScalars) or its salobj attribute name
// (evt_summaryState, cmd_setScalars, tel_forceActuatorData), as salctl
// prints them. The error for an unknown name matches ErrUnknownTopic, names
// the component and lists the close matches among the topics of kind k.
func (c *Component) Lookup(k Kind, name string) (*Topic, error) {
	var t *Topic
	switch k {
	case Command:
		t = c.byName["command_"+name]
	case Event:
		t = c.byName["logevent_"+name]
	}
	if t == nil {
		t = c.byName[name]
	}
	if t == nil {
		for _, x := range c.Topics {
			if x.AttrName() == name {
				t = x
				break
			}
		}
	}
	if t != nil && t.Kind == k {
		return t, nil
	}
	var cands []string
	for _, x := range c.Topics {
		if x.Kind == k {
			cands = append(cands, x.Name())
		}
	}
	bare := name
	for _, p := range []string{"command_", "logevent_", "cmd_", "evt_", "tel_"} {
		bare = strings.TrimPrefix(bare, p)
	}
	if cl := Closest(bare, cands); len(cl) > 0 {
		return nil, fmt.Errorf("xml: %w: %s has no %s %q (did you mean %s?)", ErrUnknownTopic, c.Name, k, name, strings.Join(cl, ", "))
	}
	return nil, fmt.Errorf("xml: %w: %s has no %s %q (it has %d)", ErrUnknownTopic, c.Name, k, name, len(cands))
}
