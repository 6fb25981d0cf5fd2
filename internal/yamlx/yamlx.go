package yamlx

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// Error is a failure to read a YAML document, naming the file (as given to
// Unmarshal) and the 1-based line, when known.
type Error struct {
	File string
	Line int // 0 when the YAML library did not say
	Msg  string

	kind error // a sentinel for errors.Is, or nil
}

// Unwrap returns the sentinel the error matches, if any.
func (e *Error) Unwrap() error { return e.kind }

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// ErrNonStringKey is matched (errors.Is) by the Error for a mapping key
// that YAML 1.1 resolves to something other than a string.
var ErrNonStringKey = errors.New("mapping key is not a string")

// MaxNodes is the most nodes (scalars, sequences and mappings, mapping keys
// included) a document may have once every alias is counted as a full copy
// of the node it names. Aliases are not copied (an alias gives the same Go
// value, see the package doc), but whoever walks the values (a validator,
// encoding/json, a printer) visits a shared value once per use: the limit
// bounds that work. One million is generous: a ts_config file of a few KB
// has a few hundred nodes, and the largest YAML files in the ts_config
// repositories (3 MB matrices read by MTAOS) about 200000; a 414-byte
// "billion laughs" document expands to a billion.
const MaxNodes = 1_000_000

// ErrTooLarge is matched (errors.Is) by the Error for a document that
// expands to more than MaxNodes nodes.
var ErrTooLarge = errors.New("document too large")

// Unmarshal reads one YAML document as yaml.safe_load does and returns it
// as plain values (mappings are map[string]any). An empty document, or one
// of comments only, gives nil. name is used in errors only.
func Unmarshal(name string, data []byte) (any, error) {
	v, err := UnmarshalOrdered(name, data)
	if err != nil {
		return nil, err
	}
	return Plain(v), nil
}

// UnmarshalOrdered is Unmarshal with mappings as *Map, in the key order a
// Python dict would have.
func UnmarshalOrdered(name string, data []byte) (any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, libError(name, data, err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, &Error{File: name, Line: extra.Line, Msg: "expected a single document in the stream, but found another document"}
	case !errors.Is(err, io.EOF):
		return nil, libError(name, data, err)
	}
	c := &constructor{file: name, done: map[*yaml.Node]any{}, busy: map[*yaml.Node]bool{}}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	if _, err := c.size(doc.Content[0], map[*yaml.Node]int{}); err != nil {
		return nil, err
	}
	return c.construct(doc.Content[0])
}

// size returns the number of nodes n stands for with every alias counted
// in full, or an error as soon as the document passes MaxNodes. Each node
// is counted once (sizes), so the work is linear in the document's text.
// It also finds recursive aliases, which would make it loop.
func (c *constructor) size(n *yaml.Node, sizes map[*yaml.Node]int) (int, error) {
	n = deref(n)
	if s, ok := sizes[n]; ok {
		return s, nil
	}
	if c.busy[n] {
		return 0, c.errorf(n, "recursive alias: an anchor is used inside itself, which Go values cannot hold")
	}
	c.busy[n] = true
	defer delete(c.busy, n)
	total := 1
	for _, e := range n.Content {
		s, err := c.size(e, sizes)
		if err != nil {
			return 0, err
		}
		if total += s; total > MaxNodes {
			return 0, &Error{File: c.file, Line: e.Line, kind: ErrTooLarge, Msg: fmt.Sprintf(
				"the document expands to more than %d nodes (scalars, sequences and mappings, each use of an alias counted in full): refused, as a YAML bomb", MaxNodes)}
		}
	}
	sizes[n] = total
	return total, nil
}

var (
	lineRE   = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	anchorRE = regexp.MustCompile(`^yaml: unknown anchor '(.*)' referenced$`)
)

// libError turns a YAML library error into an *Error. The library gives
// the line as it knows it (for a parser error, the line of the construct
// being parsed), and omits it when that is the first line. An undefined
// alias carries no line, so the line of its first use is looked up.
func libError(name string, data []byte, err error) error {
	msg := err.Error()
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &Error{File: name, Line: n, Msg: m[2]}
	}
	line := 1
	if m := anchorRE.FindStringSubmatch(msg); m != nil {
		if i := bytes.Index(data, []byte("*"+m[1])); i >= 0 {
			line += bytes.Count(data[:i], []byte("\n"))
		}
	}
	return &Error{File: name, Line: line, Msg: strings.TrimPrefix(msg, "yaml: ")}
}

// Tags, in the short form the YAML library gives and in PyYAML's long form.
const (
	tagNull      = "tag:yaml.org,2002:null"
	tagBool      = "tag:yaml.org,2002:bool"
	tagInt       = "tag:yaml.org,2002:int"
	tagFloat     = "tag:yaml.org,2002:float"
	tagStr       = "tag:yaml.org,2002:str"
	tagTimestamp = "tag:yaml.org,2002:timestamp"
	tagBinary    = "tag:yaml.org,2002:binary"
	tagMerge     = "tag:yaml.org,2002:merge"
	tagValue     = "tag:yaml.org,2002:value"
	tagSeq       = "tag:yaml.org,2002:seq"
	tagMap       = "tag:yaml.org,2002:map"
	tagSet       = "tag:yaml.org,2002:set"
	tagOmap      = "tag:yaml.org,2002:omap"
	tagPairs     = "tag:yaml.org,2002:pairs"
)

func longTag(t string) string {
	if strings.HasPrefix(t, "!!") {
		return "tag:yaml.org,2002:" + t[2:]
	}
	return t
}

// PyYAML's implicit resolvers (yaml/resolver.py), in registration order.
// Each regular expression is PyYAML's, with the verbose-mode spaces removed.
var implicit = []struct {
	tag string
	re  *regexp.Regexp
}{
	{tagBool, regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)},
	{tagFloat, regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)},
	{tagInt, regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)},
	{tagMerge, regexp.MustCompile(`^(?:<<)$`)},
	{tagNull, regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)},
	{tagTimestamp, regexp.MustCompile(`^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$`)},
	{tagValue, regexp.MustCompile(`^(?:=)$`)},
}

// Resolve returns the tag PyYAML gives a plain (unquoted, untagged) scalar,
// in long form (tag:yaml.org,2002:int, ...).
func Resolve(plain string) string {
	for _, r := range implicit {
		if r.re.MatchString(plain) {
			return r.tag
		}
	}
	return tagStr
}

// tagOf returns the long tag of a node as PyYAML's composer would resolve it.
func tagOf(n *yaml.Node) string {
	if n.Style&yaml.TaggedStyle != 0 {
		return longTag(n.Tag)
	}
	switch n.Kind {
	case yaml.MappingNode:
		return tagMap
	case yaml.SequenceNode:
		return tagSeq
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return tagStr
	}
	return Resolve(n.Value)
}

type constructor struct {
	file string
	done map[*yaml.Node]any
	busy map[*yaml.Node]bool
}

func (c *constructor) errorf(n *yaml.Node, format string, args ...any) error {
	return &Error{File: c.file, Line: n.Line, Msg: fmt.Sprintf(format, args...)}
}

func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func (c *constructor) construct(n *yaml.Node) (any, error) {
	n = deref(n)
	if v, ok := c.done[n]; ok {
		return v, nil
	}
	if c.busy[n] {
		return nil, c.errorf(n, "recursive alias: an anchor is used inside itself, which Go values cannot hold")
	}
	c.busy[n] = true
	defer delete(c.busy, n)
	tag := tagOf(n)
	var v any
	var err error
	switch n.Kind {
	case yaml.ScalarNode:
		v, err = c.scalar(n, tag)
	case yaml.SequenceNode:
		v, err = c.sequence(n, tag)
	case yaml.MappingNode:
		v, err = c.mapping(n, tag)
	default:
		err = c.errorf(n, "unexpected YAML node kind %v", n.Kind)
	}
	if err != nil {
		return nil, err
	}
	c.done[n] = v
	return v, nil
}

func (c *constructor) unsupported(n *yaml.Node, tag string) error {
	switch tag {
	case tagSet, tagOmap, tagPairs:
		return c.errorf(n, "the tag %q is not supported: its Python value (a set or a list of tuples) has no plain Go form", tag)
	}
	return c.errorf(n, "could not determine a constructor for the tag %q", tag)
}

func (c *constructor) sequence(n *yaml.Node, tag string) (any, error) {
	if tag != tagSeq {
		if tag == tagMap {
			return nil, c.errorf(n, "expected a mapping node, but found sequence")
		}
		return nil, c.unsupported(n, tag)
	}
	out := make([]any, 0, len(n.Content))
	for _, e := range n.Content {
		v, err := c.construct(e)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// pairs flattens a mapping node's merge keys the way PyYAML's
// SafeConstructor.flatten_mapping does: merged pairs first, then the
// node's own pairs, later pairs overriding earlier ones on construction.
func (c *constructor) pairs(n *yaml.Node) ([][2]*yaml.Node, error) {
	var merged, own [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		if tagOf(deref(k)) != tagMerge {
			own = append(own, [2]*yaml.Node{k, v})
			continue
		}
		switch v.Kind {
		case yaml.MappingNode:
			sub, err := c.pairs(v)
			if err != nil {
				return nil, err
			}
			merged = append(merged, sub...)
		case yaml.SequenceNode:
			var subs [][][2]*yaml.Node
			for _, s := range v.Content {
				s = deref(s)
				if s.Kind != yaml.MappingNode {
					return nil, c.errorf(s, "while constructing a mapping: expected a mapping for merging, but found %s", kindName(s))
				}
				sub, err := c.pairs(s)
				if err != nil {
					return nil, err
				}
				subs = append(subs, sub)
			}
			for i := len(subs) - 1; i >= 0; i-- {
				merged = append(merged, subs[i]...)
			}
		default:
			return nil, c.errorf(v, "while constructing a mapping: expected a mapping or list of mappings for merging, but found %s", kindName(v))
		}
	}
	return append(merged, own...), nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "sequence"
	}
	return "scalar"
}

func (c *constructor) mapping(n *yaml.Node, tag string) (any, error) {
	if tag != tagMap {
		if tag == tagSeq {
			return nil, c.errorf(n, "expected a sequence node, but found mapping")
		}
		return nil, c.unsupported(n, tag)
	}
	ps, err := c.pairs(n)
	if err != nil {
		return nil, err
	}
	m := NewMap(len(ps))
	for _, p := range ps {
		kn := deref(p[0])
		var key any
		if kn.Kind == yaml.ScalarNode && tagOf(kn) == tagValue {
			key = kn.Value // flatten_mapping turns a "=" key into a string
		} else {
			key, err = c.construct(kn)
			if err != nil {
				return nil, err
			}
		}
		ks, ok := key.(string)
		if !ok {
			return nil, &Error{File: c.file, Line: kn.Line, kind: ErrNonStringKey, Msg: fmt.Sprintf(
				"mapping key %s is %s under YAML 1.1 (as PyYAML reads it), not a string; quote it",
				keyText(kn), describe(key))}
		}
		v, err := c.construct(p[1])
		if err != nil {
			return nil, err
		}
		m.Set(ks, v)
	}
	return m, nil
}

func keyText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return strconv.Quote(n.Value)
	}
	return "(a " + kindName(n) + ")"
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null (None)"
	case bool:
		if x {
			return "the bool True"
		}
		return "the bool False"
	case int64, *big.Int:
		return fmt.Sprintf("the int %v", x)
	case float64:
		return "a float"
	case Date, Timestamp:
		return "a timestamp"
	case []byte:
		return "binary data"
	case []any:
		return "a list (unhashable in Python too)"
	case *Map:
		return "a mapping (unhashable in Python too)"
	}
	return fmt.Sprintf("a %T", v)
}

func (c *constructor) scalar(n *yaml.Node, tag string) (any, error) {
	s := n.Value
	switch tag {
	case tagStr:
		return s, nil
	case tagNull:
		return nil, nil
	case tagBool:
		switch strings.ToLower(s) {
		case "yes", "true", "on":
			return true, nil
		case "no", "false", "off":
			return false, nil
		}
		return nil, c.errorf(n, "cannot read %q as a bool (yes, no, true, false, on, off)", s)
	case tagInt:
		v, err := constructInt(s)
		if err != nil {
			return nil, c.errorf(n, "%v", err)
		}
		return v, nil
	case tagFloat:
		v, err := constructFloat(s)
		if err != nil {
			return nil, c.errorf(n, "%v", err)
		}
		return v, nil
	case tagTimestamp:
		v, err := constructTimestamp(s)
		if err != nil {
			return nil, c.errorf(n, "%v", err)
		}
		return v, nil
	case tagBinary:
		v, err := constructBinary(s)
		if err != nil {
			return nil, c.errorf(n, "%v", err)
		}
		return v, nil
	case tagMap:
		return nil, c.errorf(n, "expected a mapping node, but found scalar")
	case tagSeq:
		return nil, c.errorf(n, "expected a sequence node, but found scalar")
	}
	return nil, c.unsupported(n, tag)
}

// constructInt is PyYAML's construct_yaml_int: underscores dropped, then
// 0b binary, 0x hex, a leading 0 octal, colons base 60, else decimal.
func constructInt(text string) (any, error) {
	v := strings.ReplaceAll(text, "_", "")
	if v == "" {
		return nil, fmt.Errorf("cannot read %q as an int", text)
	}
	neg := v[0] == '-'
	if v[0] == '-' || v[0] == '+' {
		v = v[1:]
	}
	var n *big.Int
	var err error
	switch {
	case v == "0":
		return int64(0), nil
	case strings.HasPrefix(v, "0b"):
		n, err = pyInt(v[2:], 2)
	case strings.HasPrefix(v, "0x"):
		n, err = pyInt(v[2:], 16)
	case strings.HasPrefix(v, "0"):
		n, err = pyInt(v, 8)
	case strings.Contains(v, ":"):
		n = new(big.Int)
		base := big.NewInt(1)
		parts := strings.Split(v, ":")
		for i := len(parts) - 1; i >= 0; i-- {
			d, e := pyInt(parts[i], 10)
			if e != nil {
				return nil, e
			}
			n.Add(n, d.Mul(d, base))
			base = new(big.Int).Mul(base, big.NewInt(60))
		}
	default:
		n, err = pyInt(v, 10)
	}
	if err != nil {
		return nil, err
	}
	if neg {
		n.Neg(n)
	}
	return normInt(n), nil
}

func normInt(n *big.Int) any {
	if n.IsInt64() {
		return n.Int64()
	}
	return n
}

// pyInt is Python's int(s, base) for the texts PyYAML hands it: surrounding
// space and a sign allowed, and the base's own prefix (0b, 0o, 0x).
func pyInt(s string, base int) (*big.Int, error) {
	t := strings.TrimSpace(s)
	neg := false
	if t != "" && (t[0] == '-' || t[0] == '+') {
		neg = t[0] == '-'
		t = t[1:]
	}
	if len(t) > 2 && t[0] == '0' {
		p := t[1] | 0x20
		if (base == 2 && p == 'b') || (base == 8 && p == 'o') || (base == 16 && p == 'x') {
			t = t[2:]
		}
	}
	n, ok := new(big.Int).SetString(t, base)
	if !ok || t == "" || t[0] == '-' || t[0] == '+' {
		return nil, fmt.Errorf("invalid literal for int() with base %d: %s", base, quoteSingle(s))
	}
	if neg {
		n.Neg(n)
	}
	return n, nil
}

func quoteSingle(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

// constructFloat is PyYAML's construct_yaml_float.
func constructFloat(text string) (float64, error) {
	v := strings.ToLower(strings.ReplaceAll(text, "_", ""))
	if v == "" {
		return 0, fmt.Errorf("cannot read %q as a float", text)
	}
	sign := 1.0
	if v[0] == '-' {
		sign = -1
	}
	if v[0] == '-' || v[0] == '+' {
		v = v[1:]
	}
	switch {
	case v == ".inf":
		return sign * math.Inf(1), nil
	case v == ".nan":
		return math.NaN(), nil
	case strings.Contains(v, ":"):
		parts := strings.Split(v, ":")
		value, base := 0.0, 1.0
		for i := len(parts) - 1; i >= 0; i-- {
			d, err := pyFloat(parts[i])
			if err != nil {
				return 0, err
			}
			value += d * base
			base *= 60
		}
		return sign * value, nil
	}
	f, err := pyFloat(v)
	return sign * f, err
}

// pyFloat is Python's float(s) for decimal texts: overflow gives inf.
func pyFloat(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(strings.TrimLeft(t, "+-"), "0x") {
		return 0, fmt.Errorf("could not convert string to float: %s", quoteSingle(s))
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return f, nil
		}
		return 0, fmt.Errorf("could not convert string to float: %s", quoteSingle(s))
	}
	return f, nil
}

// PyYAML's SafeConstructor.timestamp_regexp.
var timestampRE = regexp.MustCompile(`^([0-9][0-9][0-9][0-9])-([0-9][0-9]?)-([0-9][0-9]?)(?:(?:[Tt]|[ \t]+)([0-9][0-9]?):([0-9][0-9]):([0-9][0-9])(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9][0-9]?)(?::([0-9][0-9]))?))?)?$`)

// constructTimestamp is PyYAML's construct_yaml_timestamp, with the range
// checks Python's datetime constructors make.
func constructTimestamp(s string) (any, error) {
	m := timestampRE.FindStringSubmatch(s)
	if m == nil {
		return nil, fmt.Errorf("cannot read %q as a timestamp", s)
	}
	atoi := func(x string) int { n, _ := strconv.Atoi(x); return n }
	year, month, day := atoi(m[1]), atoi(m[2]), atoi(m[3])
	if year < 1 {
		return nil, fmt.Errorf("year %d is out of range", year)
	}
	if month < 1 || month > 12 {
		return nil, errors.New("month must be in 1..12")
	}
	if day < 1 || day > daysIn(year, month) {
		return nil, errors.New("day is out of range for month")
	}
	if m[4] == "" {
		return Date{Year: year, Month: time.Month(month), Day: day}, nil
	}
	hour, minute, second := atoi(m[4]), atoi(m[5]), atoi(m[6])
	switch {
	case hour > 23:
		return nil, errors.New("hour must be in 0..23")
	case minute > 59:
		return nil, errors.New("minute must be in 0..59")
	case second > 59:
		return nil, errors.New("second must be in 0..59")
	}
	us := 0
	if f := m[7]; f != "" {
		if len(f) > 6 {
			f = f[:6]
		}
		us = atoi(f + strings.Repeat("0", 6-len(f)))
	}
	loc, naive := time.UTC, true
	switch {
	case m[9] != "":
		off := atoi(m[10])*3600 + atoi(m[11])*60
		if m[9] == "-" {
			off = -off
		}
		if off <= -86400 || off >= 86400 {
			return nil, errors.New("offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24)")
		}
		loc, naive = time.FixedZone("", off), false
	case m[8] != "":
		naive = false
	}
	return Timestamp{Time: time.Date(year, time.Month(month), day, hour, minute, second, us*1000, loc), Naive: naive}, nil
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// constructBinary decodes base64 as Python's base64.decodebytes does:
// characters outside the alphabet (line breaks, spaces) are skipped.
func constructBinary(s string) ([]byte, error) {
	var b strings.Builder
	for _, r := range s {
		if r > 0x7f {
			return nil, errors.New("failed to convert base64 data into ascii")
		}
		if r == '+' || r == '/' || r == '=' || (r >= '0' && r <= '9') || (r|0x20 >= 'a' && r|0x20 <= 'z') {
			b.WriteRune(r)
		}
	}
	t := strings.TrimRight(b.String(), "=")
	out, err := base64.RawStdEncoding.DecodeString(t)
	if err != nil {
		return nil, fmt.Errorf("failed to decode base64 data: %v", err)
	}
	return out, nil
}
