package xml

import (
	"strconv"
	"strings"
)

// subsystem is one <SALSubsystem> of SALSubsystems.xml.
type subsystem struct {
	name, description, indexEnum string
	added                        []string
	line                         int
}

func parseSubsystems(file string, data []byte) ([]*subsystem, error) {
	root, err := parseTree(file, data)
	if err != nil {
		return nil, err
	}
	if root.name != "SALSubsystemSet" {
		return nil, invalidf(file, root.line, "root element is <%s>, want <SALSubsystemSet>", root.name)
	}
	var out []*subsystem
	seen := map[string]int{}
	for _, n := range root.children {
		if n.name != "SALSubsystem" {
			continue
		}
		name, ok := n.childText("Name")
		if !ok || name == "" {
			return nil, invalidf(file, n.line, "<SALSubsystem> without <Name>")
		}
		if !validName(name) || strings.Contains(name, "_") {
			return nil, invalidf(file, n.line, "component name %q is not a valid SAL component name", name)
		}
		if l, dup := seen[name]; dup {
			return nil, invalidf(file, n.line, "duplicate component %s (first at line %d)", name, l)
		}
		seen[name] = n.line
		ie, ok := n.childText("IndexEnumeration")
		if !ok {
			return nil, invalidf(file, n.line, "component %s has no <IndexEnumeration>", name)
		}
		ag, ok := n.childText("AddedGenerics")
		if !ok {
			return nil, invalidf(file, n.line, "component %s has no <AddedGenerics>", name)
		}
		s := &subsystem{name: name, description: n.rawText("Description", ""), indexEnum: ie, line: n.line}
		for _, e := range strings.Split(ag, ",") {
			if e = strings.TrimSpace(e); e != "" {
				s.added = append(s.added, e)
			}
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, invalidf(file, root.line, "no <SALSubsystem> elements")
	}
	return out, nil
}

// indexNames parses a non-"no", non-"any" IndexEnumeration: "a,b,c"
// (numbered 1, 2, 3) or "A=1,B=2".
func indexNames(file string, line int, comp, text string) ([]EnumEntry, error) {
	if text == "no" || text == "any" || text == "" {
		return nil, nil
	}
	var out []EnumEntry
	for i, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, invalidf(file, line, "component %s: empty entry in IndexEnumeration %q", comp, text)
		}
		name, val, hasVal := strings.Cut(part, "=")
		e := EnumEntry{Name: strings.TrimSpace(name), Value: int64(i + 1)}
		if hasVal {
			v, err := parseEnumValue(strings.TrimSpace(val))
			if err != nil {
				return nil, invalidf(file, line, "component %s: IndexEnumeration entry %q: %v", comp, part, err)
			}
			e.Value = v
		}
		out = append(out, e)
	}
	return out, nil
}

// generics holds the parsed SALGenerics.xml.
type generics struct {
	byName     map[string]*topicDef
	categories map[string][]*topicDef
	enums      []*Enumeration
}

// topicDef is a parsed topic element, not yet bound to a component.
type topicDef struct {
	salName     string
	kind        Kind
	description string
	fields      []*Field
	file        string
	line        int
	generic     bool
}

func parseGenerics(file string, data []byte) (*generics, error) {
	root, err := parseTree(file, data)
	if err != nil {
		return nil, err
	}
	if root.name != "SALObjects" {
		return nil, invalidf(file, root.line, "root element is <%s>, want <SALObjects>", root.name)
	}
	g := &generics{byName: map[string]*topicDef{}, categories: map[string][]*topicDef{}}
	for _, set := range root.children {
		var kind Kind
		switch set.name {
		case "SALCommandSet":
			kind = Command
		case "SALEventSet":
			kind = Event
		case "SALTelemetrySet":
			kind = Telemetry
		default:
			continue
		}
		for _, n := range set.children {
			switch n.name {
			case "Enumeration":
				e, err := parseEnumeration(file, n, true)
				if err != nil {
					return nil, err
				}
				g.enums = append(g.enums, e)
				continue
			case "SALCommand", "SALEvent", "SALTelemetry":
			default:
				continue
			}
			td, err := parseTopic(file, n, "SALGeneric", kind)
			if err != nil {
				return nil, err
			}
			td.generic = true
			if old, dup := g.byName[td.salName]; dup {
				return nil, invalidf(file, n.line, "duplicate generic topic %s (first at line %d)", td.salName, old.line)
			}
			g.byName[td.salName] = td
			if cat, ok := n.childText("Category"); ok && cat != "" {
				g.categories[cat] = append(g.categories[cat], td)
			}
		}
	}
	return g, nil
}

var kindTags = map[Kind]string{Command: "SALCommand", Event: "SALEvent", Telemetry: "SALTelemetry"}
var kindRoots = map[Kind]string{Command: "SALCommandSet", Event: "SALEventSet", Telemetry: "SALTelemetrySet"}

// parseComponentFile parses one <C>_<Kind>.xml file.
func parseComponentFile(file string, data []byte, comp string, kind Kind) ([]*topicDef, []*Enumeration, error) {
	root, err := parseTree(file, data)
	if err != nil {
		return nil, nil, err
	}
	if root.name != kindRoots[kind] {
		return nil, nil, invalidf(file, root.line, "root element is <%s>, want <%s>", root.name, kindRoots[kind])
	}
	var topics []*topicDef
	var enums []*Enumeration
	for _, n := range root.children {
		switch n.name {
		case "Enumeration":
			e, err := parseEnumeration(file, n, true)
			if err != nil {
				return nil, nil, err
			}
			enums = append(enums, e)
		case kindTags[kind]:
			td, err := parseTopic(file, n, comp, kind)
			if err != nil {
				return nil, nil, err
			}
			topics = append(topics, td)
		case "SALCommand", "SALEvent", "SALTelemetry":
			return nil, nil, invalidf(file, n.line, "<%s> in a <%s> file", n.name, root.name)
		}
	}
	return topics, enums, nil
}

func parseTopic(file string, n *node, prefix string, kind Kind) (*topicDef, error) {
	full, ok := n.childText("EFDB_Topic")
	if !ok || full == "" {
		return nil, invalidf(file, n.line, "<%s> without <EFDB_Topic>", n.name)
	}
	pre, salName, ok := strings.Cut(full, "_")
	if !ok || salName == "" {
		return nil, invalidf(file, n.line, "EFDB_Topic %q has no \"_\" separating component and topic name", full)
	}
	if pre != prefix {
		return nil, invalidf(file, n.line, "EFDB_Topic %q does not start with %q", full, prefix+"_")
	}
	switch kind {
	case Command:
		if !strings.HasPrefix(salName, "command_") || len(salName) == len("command_") {
			return nil, invalidf(file, n.line, "command topic %q must be named %s_command_<name>", full, prefix)
		}
	case Event:
		if !strings.HasPrefix(salName, "logevent_") || len(salName) == len("logevent_") {
			return nil, invalidf(file, n.line, "event topic %q must be named %s_logevent_<name>", full, prefix)
		}
	case Telemetry:
		if strings.HasPrefix(salName, "command_") || strings.HasPrefix(salName, "logevent_") || salName == "ackcmd" {
			return nil, invalidf(file, n.line, "telemetry topic %q must not be named like a command, event or ackcmd", full)
		}
	}
	if !validName(salName) {
		return nil, invalidf(file, n.line, "topic name %q is not a valid Avro name", salName)
	}
	td := &topicDef{salName: salName, kind: kind, description: n.rawText("Description", ""), file: file, line: n.line}
	seen := map[string]int{}
	for _, it := range n.children {
		if it.name != "item" {
			continue
		}
		f, err := parseItem(file, it, salName)
		if err != nil {
			return nil, err
		}
		if l, dup := seen[f.Name]; dup {
			return nil, invalidf(file, it.line, "topic %s: duplicate field %s (first at line %d)", salName, f.Name, l)
		}
		if isPrivateName(f.Name) {
			return nil, invalidf(file, it.line, "topic %s: field name %s is reserved for private fields", salName, f.Name)
		}
		seen[f.Name] = it.line
		td.fields = append(td.fields, f)
	}
	return td, nil
}

func parseItem(file string, it *node, topic string) (*Field, error) {
	name, ok := it.childText("EFDB_Name")
	if !ok || name == "" {
		return nil, invalidf(file, it.line, "topic %s: <item> without <EFDB_Name>", topic)
	}
	if !validName(name) {
		return nil, invalidf(file, it.line, "topic %s: field name %q is not a valid Avro name", topic, name)
	}
	ts, ok := it.childText("IDL_Type")
	if !ok {
		return nil, invalidf(file, it.line, "topic %s field %s: no <IDL_Type>", topic, name)
	}
	typ, ok := ParseType(ts)
	if !ok {
		return nil, invalidf(file, it.line, "topic %s field %s: unknown IDL_Type %q (want one of boolean, byte, short, int, long, long long, unsigned short, unsigned int, float, double, string)", topic, name, ts)
	}
	f := &Field{Name: name, Type: typ, Count: 1, Units: "unitless", Description: it.rawText("Description", ""), Line: it.line}
	if cs, ok := it.childText("Count"); ok {
		c, err := strconv.Atoi(cs)
		if err != nil || c < 1 {
			return nil, invalidf(file, it.line, "topic %s field %s: bad Count %q (want an integer >= 1)", topic, name, cs)
		}
		if c > 1 && typ == String {
			return nil, invalidf(file, it.line, "topic %s field %s: a string cannot be an array (Count %d)", topic, name, c)
		}
		f.Count = c
	}
	if ss, ok := it.childText("IDL_Size"); ok {
		s, err := strconv.Atoi(ss)
		if err != nil || s < 0 {
			return nil, invalidf(file, it.line, "topic %s field %s: bad IDL_Size %q (want an integer >= 0)", topic, name, ss)
		}
		if typ == String {
			f.Size = s
		}
	}
	if u := it.child("Units"); u != nil && u.text != "" {
		f.Units = strings.TrimSpace(u.text)
	}
	if en := it.child("Enumeration"); en != nil {
		e, err := parseEnumeration(file, en, false)
		if err != nil {
			return nil, err
		}
		f.Enumeration = e
	}
	return f, nil
}

// parseEnumeration parses "A_x, A_y=3, ..." (fileLevel: a shared class
// prefix is required).
func parseEnumeration(file string, n *node, fileLevel bool) (*Enumeration, error) {
	e := &Enumeration{File: file, Line: n.line}
	withVal := 0
	for _, part := range strings.Split(n.text, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, invalidf(file, n.line, "enumeration %q has an empty entry", strings.TrimSpace(n.text))
		}
		name, val, hasVal := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		if name == "" || strings.ContainsAny(name, " \t\n") {
			return nil, invalidf(file, n.line, "enumeration entry %q: bad name", part)
		}
		ent := EnumEntry{Name: name, Value: int64(len(e.Entries) + 1)}
		if hasVal {
			v, err := parseEnumValue(strings.TrimSpace(val))
			if err != nil {
				return nil, invalidf(file, n.line, "enumeration entry %q: %v", part, err)
			}
			ent.Value = v
			withVal++
		}
		if fileLevel {
			class, _, ok := strings.Cut(name, "_")
			if !ok || class == "" {
				return nil, invalidf(file, n.line, "enumeration entry %q has no Class_ prefix", name)
			}
			if e.Class == "" {
				e.Class = class
			} else if class != e.Class {
				return nil, invalidf(file, n.line, "enumeration mixes classes %s and %s", e.Class, class)
			}
		}
		for _, old := range e.Entries {
			if old.Name == ent.Name {
				return nil, invalidf(file, n.line, "enumeration repeats the name %s", ent.Name)
			}
		}
		e.Entries = append(e.Entries, ent)
	}
	if withVal != 0 && withVal != len(e.Entries) {
		return nil, invalidf(file, n.line, "enumeration gives values for some entries but not all")
	}
	e.Explicit = withVal > 0
	return e, nil
}

// parseEnumValue parses decimal (leading zeros allowed, "04" is 4), -N and 0x.. values.
func parseEnumValue(s string) (int64, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return strconv.ParseInt(s[2:], 16, 64)
	}
	return strconv.ParseInt(s, 10, 64)
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r == '_':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func isPrivateName(s string) bool {
	return s == "salIndex" || strings.HasPrefix(s, "private_")
}
