package salgen

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// recordMethods are the names a record type's fields may not take: the
// methods of topics.Record and the embedded topics.Private.
var recordMethods = []string{"RecordType", "AppendAvro", "DecodeAvro", "Validate", "ToMap", "FromMap", "Private"}

// packageNames are the exported package-level names every generated
// package declares; topic types and enumerations do not take them.
var packageNames = []string{"Name", "XMLVersion", "Definition", "Use", "RecordTypes", "Remote", "NewRemote", "CSC", "NewCSC", "Controller", "NewController"}

// The exported methods (and the embedded field's name) of the types the
// generated Remote, CSC and Controller embed: their accessors and
// handlers do not take these names (TestReservedNames checks the lists
// against the method sets).
var (
	remoteMethods = []string{"Close", "Command", "CommandNames", "Component", "Event", "EventNames", "HeartbeatAge",
		"Identity", "Index", "MustEvent", "MustTelemetry", "Name", "Pending", "Start", "StartCommand", "Telemetry",
		"TelemetryNames"}
	cscMethods = []string{"Close", "Component", "DisabledOrEnabled", "Done", "Err", "Event", "Fault", "Handle",
		"HandleFunc", "Identity", "Index", "Logger", "Loop", "MustEvent", "MustTelemetry", "Name", "RequireEnabled",
		"SetLogLevel", "SetState", "Shutdown", "SimulationMode", "Start", "State", "Stats", "Telemetry"}
	controllerMethods = []string{"Close", "Component", "Event", "Handle", "HandleFunc", "Identity", "Index",
		"LogLevel", "Logger", "MustEvent", "MustTelemetry", "Name", "SetLogLevel", "Start", "Stats", "Telemetry"}
)

// namer hands out unique identifiers: a name already taken gets "_"
// appended until it is free.
type namer map[string]bool

func newNamer(reserved ...[]string) namer {
	n := namer{}
	for _, l := range reserved {
		for _, s := range l {
			n[s] = true
		}
	}
	return n
}

// take returns name, made unique, and marks it used.
func (n namer) take(name string) string {
	for n[name] {
		name += "_"
	}
	n[name] = true
	return name
}

// exported turns a SAL name into an exported Go identifier: characters
// that cannot be in one become "_", the first letter is upper-cased, and
// a name that does not start with a letter gets an "X" in front.
func exported(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String()
	r, size := utf8.DecodeRuneInString(out)
	switch {
	case out == "":
		return "X"
	case !unicode.IsLetter(r):
		return "X" + out
	case !unicode.IsUpper(r):
		return string(unicode.ToUpper(r)) + out[size:]
	}
	return out
}

// camel turns an enumeration entry's name into CamelCase: the parts
// between "_" (and other characters an identifier cannot hold) each
// start with an upper-case letter; an all-capitals part is lowered after
// its first letter ("IN_POSITION" -> "InPosition", "Idle" -> "Idle",
// "inPosition" -> "InPosition").
func camel(s string) string {
	parts := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	var b strings.Builder
	for _, p := range parts {
		if strings.ToUpper(p) == p {
			p = strings.ToLower(p)
		}
		r, size := utf8.DecodeRuneInString(p)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(p[size:])
	}
	return b.String()
}

// comment turns free text into one line (runs of white space become one
// space).
func comment(s string) string { return strings.Join(strings.Fields(s), " ") }
