package cli

// Names of enumerated values: summaryState 2 (ENABLED), ack 303
// (CMD_COMPLETE), and the integer fields the XML enumerates.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/lsst-sal/salgo/sal"
	salxml "github.com/lsst-sal/salgo/xml"
)

// Enum is the enumeration of one field: its entries in order.
type Enum struct {
	Entries []salxml.EnumEntry
	// Source says where the names come from, for help texts: "the XML
	// enumeration Class", "the field's XML enumeration", "the generic ...".
	Source  string
	byValue map[int64]string
}

// Name returns the name of v.
func (e *Enum) Name(v int64) (string, bool) {
	n, ok := e.byValue[v]
	return n, ok
}

// Value returns the value of a name, compared without case.
func (e *Enum) Value(name string) (int64, bool) {
	for _, en := range e.Entries {
		if strings.EqualFold(en.Name, name) {
			return en.Value, true
		}
	}
	return 0, false
}

// Names lists the entries as "NAME=value".
func (e *Enum) Names() []string {
	out := make([]string, len(e.Entries))
	for i, en := range e.Entries {
		out[i] = en.Name + "=" + strconv.FormatInt(en.Value, 10)
	}
	return out
}

func newEnum(source string, entries []salxml.EnumEntry) *Enum {
	e := &Enum{Entries: entries, Source: source, byValue: map[int64]string{}}
	for _, en := range entries {
		if _, dup := e.byValue[en.Value]; !dup {
			e.byValue[en.Value] = en.Name
		}
	}
	return e
}

// Enums names the values of the enumerated fields of one component's
// topics, keyed by SAL topic name and field name:
//   - the generic ones everybody knows: logevent_summaryState.summaryState
//     (sal.State: ENABLED, ...), ackcmd.ack (CMD_COMPLETE, ...) and the
//     Python logging levels of logLevel, logMessage and setLogLevel;
//   - a field-level XML <Enumeration>, with the names as written;
//   - an integer field named as a file-level enumeration's class
//     (detailedState and DetailedState, mode and Mode), or whose
//     description names the class ("Enabled state; an EnabledState
//     enum."), with the names without their "Class_" prefix.
type Enums struct {
	fields map[string]*Enum // "topic.field"
}

var genericEnums = func() map[string]*Enum {
	var states []salxml.EnumEntry
	for _, s := range []sal.State{sal.Disabled, sal.Enabled, sal.Fault, sal.Offline, sal.Standby} {
		states = append(states, salxml.EnumEntry{Name: s.Name(), Value: int64(s)})
	}
	var acks []salxml.EnumEntry
	for _, c := range []sal.AckCode{sal.CmdAck, sal.CmdInProgress, sal.CmdStalled, sal.CmdComplete,
		sal.CmdNoPerm, sal.CmdNoAck, sal.CmdFailed, sal.CmdAborted, sal.CmdTimeout} {
		acks = append(acks, salxml.EnumEntry{Name: c.String(), Value: int64(c)})
	}
	levels := []salxml.EnumEntry{{Name: "DEBUG", Value: 10}, {Name: "INFO", Value: 20}, {Name: "WARNING", Value: 30}, {Name: "ERROR", Value: 40}, {Name: "CRITICAL", Value: 50}}
	level := newEnum("Python logging levels", levels)
	return map[string]*Enum{
		"logevent_summaryState.summaryState": newEnum("summary states (ts_xml SummaryStates)", states),
		"ackcmd.ack":                         newEnum("ack codes (SalRetCode)", acks),
		"logevent_logLevel.level":            level,
		"logevent_logMessage.level":          level,
		"command_setLogLevel.level":          level,
	}
}()

// NewEnums collects the enumerations of c's topics; with c nil, only the
// generic ones.
func NewEnums(c *salxml.Component) *Enums {
	e := &Enums{fields: map[string]*Enum{}}
	if c == nil {
		return e
	}
	classes := map[string]*salxml.Enumeration{}
	for _, en := range c.Enumerations {
		if en.Class != "" {
			classes[strings.ToLower(en.Class)] = en
		}
	}
	for _, t := range c.Topics {
		for _, f := range t.Fields {
			if f.Private || !isInteger(f.Type) {
				continue
			}
			key := t.SALName + "." + f.Name
			switch {
			case f.Enumeration != nil && len(f.Enumeration.Entries) > 0:
				e.fields[key] = newEnum("the field's XML enumeration", f.Enumeration.Entries)
			case t.Kind != salxml.Ack && classes[strings.ToLower(f.Name)] != nil:
				e.fields[key] = classEnum(classes[strings.ToLower(f.Name)])
			case t.Kind != salxml.Ack && classes[strings.ToLower(describedClass(f.Description))] != nil:
				e.fields[key] = classEnum(classes[strings.ToLower(describedClass(f.Description))])
			}
		}
	}
	return e
}

// classEnum is a file-level enumeration's entries without their
// "Class_" prefix.
func classEnum(cl *salxml.Enumeration) *Enum {
	entries := make([]salxml.EnumEntry, len(cl.Entries))
	for i, en := range cl.Entries {
		entries[i] = salxml.EnumEntry{Name: strings.TrimPrefix(en.Name, cl.Class+"_"), Value: en.Value}
	}
	return newEnum("the XML enumeration "+cl.Class, entries)
}

// describedRe finds the enumeration a field's description names, as
// ts_xml links many fields to a file-level enumeration only in words:
// "Enabled state; an EnabledState enum.", "Motion state, as an
// AxisMotionState enum.", "... translates back to the AlarmSeverity enum
// values." A bit mask ("a LimitsMask enum mask") is not one value of its
// enumeration, so it is left unnamed.
var describedRe = regexp.MustCompile(`\b([A-Z][A-Za-z0-9]*) enum\b(\s+mask)?`)

// describedClass is the enumeration class a description names, or "".
func describedClass(desc string) string {
	m := describedRe.FindStringSubmatch(desc)
	if m == nil || m[2] != "" {
		return ""
	}
	return m[1]
}

// Field returns the enumeration of a field, or nil.
func (e *Enums) Field(topic, field string) *Enum {
	if g := genericEnums[topic+"."+field]; g != nil {
		return g
	}
	if e == nil {
		return nil
	}
	return e.fields[topic+"."+field]
}

// Label renders v, with its name in parentheses when the field is
// enumerated and v has a name: "2 (ENABLED)", "7".
func (e *Enums) Label(topic, field string, v any) string {
	s := TextValue(sliceAny(v))
	if n, ok := IntOf(v); ok {
		if en := e.Field(topic, field); en != nil {
			if name, ok := en.Name(n); ok {
				return fmt.Sprintf("%s (%s)", s, name)
			}
		}
	}
	return s
}

// IntOf returns an integer value of any of the SDK's or Tap's integer
// types.
func IntOf(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	}
	return 0, false
}

func isInteger(t salxml.Type) bool {
	switch t {
	case salxml.Byte, salxml.Short, salxml.Int, salxml.Long, salxml.LongLong, salxml.UnsignedShort, salxml.UnsignedInt:
		return true
	}
	return false
}

// FormatAck renders an acknowledgement with its code's name: `ack 303
// (CMD_COMPLETE), error 0, result "Done"`, with the timeout of an
// in-progress one.
func FormatAck(a *sal.Ack) string {
	s := fmt.Sprintf("ack %d (%s), error %d, result %q", int32(a.Code), a.Code, a.Error, a.Result)
	if a.Code == sal.CmdInProgress || a.Timeout > 0 {
		s += ", timeout " + a.Timeout.String()
	}
	return s
}

// CommandOfAck returns the bare name of the command an ack of c answers
// (by its cmdtype), or "cmdtype N".
func CommandOfAck(c *salxml.Component, a *sal.Ack) string {
	for _, t := range c.TopicsOf(salxml.Command) {
		if c.CmdType(t.SALName) == int(a.CmdType) {
			return t.Name()
		}
	}
	return fmt.Sprintf("cmdtype %d", a.CmdType)
}

// Labels lists the enumerated scalar fields of a record of topic (a SAL
// name) that have a name, in the order of fields: "summaryState 2
// (ENABLED)".
func (e *Enums) Labels(topic string, fields []string, rec map[string]any) []string {
	var out []string
	for _, f := range fields {
		n, ok := IntOf(rec[f])
		if !ok {
			continue
		}
		if en := e.Field(topic, f); en != nil {
			if name, ok := en.Name(n); ok {
				out = append(out, fmt.Sprintf("%s %d (%s)", f, n, name))
			}
		}
	}
	return out
}
