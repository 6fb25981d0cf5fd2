package jsonschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strings"

	sj "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/lsst-sal/salgo/internal/pyrepr"
	"github.com/lsst-sal/salgo/internal/yamlx"
)

const draft7 = "http://json-schema.org/draft-07/schema#"

// knownFormats are the formats the library asserts in Draft 7; each is
// replaced by a no-op, since salobj's validators assert no format.
// ("regex" cannot be replaced; its errors are dropped in fromSanthosh.)
var knownFormats = []string{
	"json-pointer", "relative-json-pointer", "uuid", "duration", "period", "ipv4", "ipv6",
	"hostname", "email", "date", "time", "date-time", "uri", "iri", "uri-reference",
	"iri-reference", "uri-template", "semver",
}

// Schema is a compiled Draft 7 schema. It is safe for concurrent use by
// Validate; FillDefaults does not modify it either.
type Schema struct {
	name     string
	doc      any // *yamlx.Map or bool, in written order
	compiled *sj.Schema
	walk     *walker
}

// Compile reads a schema written in YAML (name is used in errors) and
// compiles it as Draft 7.
func Compile(name string, yamlText []byte) (*Schema, error) {
	doc, err := yamlx.UnmarshalOrdered(name, yamlText)
	if err != nil {
		return nil, err
	}
	return CompileValue(name, doc)
}

// CompileValue compiles a schema already read: a *yamlx.Map (keyword order
// kept), a map[string]any (keywords taken in sorted order, which can change
// which error is reported first) or a bool.
func CompileValue(name string, doc any) (*Schema, error) {
	doc = ordered(normalize(doc))
	switch doc.(type) {
	case *yamlx.Map, bool:
	default:
		return nil, fmt.Errorf("schema %s: %s is not a mapping (or a boolean)", name, pyrepr.Repr(doc))
	}
	j, _ := toJSON(doc, true)
	if m, ok := j.(map[string]any); ok {
		m["$schema"] = draft7 // Draft 7 whatever the document says, as salobj does
	}
	url := "urn:salgo:schema:" + name
	c := sj.NewCompiler()
	c.DefaultDraft(sj.Draft7)
	for _, f := range knownFormats {
		c.RegisterFormat(&sj.Format{Name: f, Validate: func(any) error { return nil }})
	}
	if err := c.AddResource(url, j); err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	return &Schema{name: name, doc: doc, compiled: compiled, walk: newWalker(doc)}, nil
}

// Doc returns the schema as read: a *yamlx.Map (or a bool). It must not be
// modified.
func (s *Schema) Doc() any { return s.doc }

// Title returns the schema's "title", or "" and false if it has none or it
// is not a string.
func (s *Schema) Title() (string, bool) {
	m, ok := s.doc.(*yamlx.Map)
	if !ok {
		return "", false
	}
	v, ok := m.Get("title")
	t, isStr := v.(string)
	return t, ok && isStr
}

// Validate checks v and returns nil or the first *ValidationError, as
// Python's Draft7Validator(schema).validate(v) raises it.
func (s *Schema) Validate(v any) error {
	v = normalize(v)
	e, err := s.walk.first(v, s.doc, false)
	if err == nil {
		if e != nil {
			return e
		}
		return nil
	}
	// The walk met a construct it does not follow: the library decides.
	j, ok := toJSON(v, false)
	if !ok {
		return fmt.Errorf("schema %s: %w", s.name, err)
	}
	if serr := s.compiled.Validate(j); serr != nil {
		var ve *sj.ValidationError
		if errors.As(serr, &ve) {
			if e := fromSanthosh(ve); e != nil {
				return e
			}
			return nil
		}
		return fmt.Errorf("schema %s: %w", s.name, serr)
	}
	return nil
}

// FillDefaults is salobj's DefaultingValidator.validate: v (nil meaning an
// empty mapping) is copied, the copy gets the schema's defaults (see the
// package doc) and is validated, then validated again unchanged (so a bad
// default is caught), and returned. v itself is not modified (Python
// modifies nested mappings of the caller's data; Go does not). The copy
// keeps v's sharing: a mapping or list that v holds in several places (a
// YAML alias) is one value in the copy and in the result, filled in place
// as Python fills the one dict, so every use sees the defaults of every
// schema position it is validated under. A v that is not a mapping fails
// with "<v> is not a dict".
func (s *Schema) FillDefaults(v any) (map[string]any, error) {
	v = normalize(v)
	var m *yamlx.Map
	switch x := v.(type) {
	case nil:
		m = yamlx.NewMap(0)
	case *yamlx.Map, map[string]any:
		m = clone(x, true).(*yamlx.Map)
	default:
		return nil, &ValidationError{Message: pyrepr.Str(v) + " is not a dict"}
	}
	e, err := s.walk.first(m, s.doc, true)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", s.name, err)
	}
	if e != nil {
		return nil, e
	}
	if err := s.Validate(m); err != nil {
		return nil, err
	}
	return yamlx.Plain(m).(map[string]any), nil
}

// ValidationError is one jsonschema error, with the fields Python's
// jsonschema.ValidationError has.
type ValidationError struct {
	// Message is Python's message, e.g. "0 is not of type 'string'".
	Message string
	// Keyword is the failing keyword ("type"); "" for a false schema.
	Keyword string
	// KeywordValue is the keyword's value in the schema.
	KeywordValue any
	// SchemaPath is the path from the root schema to the keyword
	// (keywords, property names and list indices).
	SchemaPath []any
	// Path is the path from the root of the instance to the failing value.
	Path []any
	// Schema is the (sub-)schema holding the keyword.
	Schema any
	// Instance is the failing value.
	Instance any

	set  bool          // the fields above, after Message, are filled in
	lazy func() string // the Message, until the error leaves the walk
}

func (e *ValidationError) Error() string { return e.Message }

// PyRepr is Python's repr: <ValidationError: 'message'>.
func (e *ValidationError) PyRepr() string {
	return "<ValidationError: " + pyrepr.String(e.Message) + ">"
}

// Plain is Python's str(error): the message, then (when the details are
// known) which keyword failed where, with the sub-schema and the instance
// pretty-printed as pprint does at width 72.
func (e *ValidationError) Plain() string {
	if !e.set {
		return e.Message
	}
	sp := e.SchemaPath
	if len(sp) > 0 {
		sp = sp[:len(sp)-1]
	}
	var b strings.Builder
	b.WriteString(e.Message)
	b.WriteString("\n\nFailed validating ")
	b.WriteString(pyrepr.Repr(keywordOrNone(e.Keyword)))
	b.WriteString(" in ")
	b.WriteString(asIndex("schema", sp))
	b.WriteString(":\n")
	b.WriteString(indent(pyrepr.PFormat(e.Schema, 72)))
	b.WriteString("\n\nOn ")
	b.WriteString(asIndex("instance", e.Path))
	b.WriteString(":\n")
	b.WriteString(indent(pyrepr.PFormat(e.Instance, 72)))
	return strings.TrimRight(b.String(), " \t\n")
}

func keywordOrNone(k string) any {
	if k == "" {
		return nil
	}
	return k
}

func asIndex(container string, path []any) string {
	if len(path) == 0 {
		return container
	}
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = pyrepr.Repr(p)
	}
	return container + "[" + strings.Join(parts, "][") + "]"
}

// indent prefixes every line that is not blank with four spaces, as the
// dedented template of jsonschema's __str__ leaves them.
func indent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = "    " + l
		}
	}
	return strings.Join(lines, "\n")
}

// fromSanthosh converts the first leaf of a santhosh-tekuri error that is
// not a format assertion; nil if there is none.
func fromSanthosh(ve *sj.ValidationError) *ValidationError {
	ve = firstLeaf(ve)
	if ve == nil {
		return nil
	}
	path := make([]any, len(ve.InstanceLocation))
	for i, p := range ve.InstanceLocation {
		path[i] = p
	}
	kw := ""
	if kp := ve.ErrorKind.KeywordPath(); len(kp) > 0 {
		kw = kp[len(kp)-1]
	}
	leaf := *ve
	leaf.Causes = nil
	return &ValidationError{Message: leaf.Error(), Keyword: kw, Path: path}
}

func firstLeaf(ve *sj.ValidationError) *sj.ValidationError {
	if len(ve.Causes) == 0 {
		if _, isFormat := ve.ErrorKind.(*kind.Format); isFormat {
			return nil
		}
		return ve
	}
	for _, c := range ve.Causes {
		if l := firstLeaf(c); l != nil {
			return l
		}
	}
	return nil
}

// normalize turns other Go integer, float, slice and map types into the
// yamlx value model. Lists and maps are copied, each once: a value held in
// several places stays one value.
func normalize(v any) any {
	return normalizer{}.norm(v)
}

type normalizer map[ref]any

func (nz normalizer) norm(v any) any {
	switch x := v.(type) {
	case nil, bool, string, int64, float64, *big.Int, []byte, *yamlx.Map, yamlx.Date, yamlx.Timestamp:
		return v
	case []any:
		id, ok := refOf(x)
		if !ok {
			return []any{}
		}
		if out, ok := nz[id]; ok {
			return out
		}
		out := make([]any, len(x))
		nz[id] = out
		for i, e := range x {
			out[i] = nz.norm(e)
		}
		return out
	case map[string]any:
		id, ok := refOf(x)
		if ok {
			if out, ok := nz[id]; ok {
				return out
			}
		}
		out := make(map[string]any, len(x))
		if ok {
			nz[id] = out
		}
		for k, e := range x {
			out[k] = nz.norm(e)
		}
		return out
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if n, ok := new(big.Int).SetString(string(x), 10); ok {
			return n
		}
		f, _ := x.Float64()
		return f
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := rv.Uint()
		if u <= math.MaxInt64 {
			return int64(u)
		}
		return new(big.Int).SetUint64(u)
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	case reflect.String:
		return rv.String()
	case reflect.Bool:
		return rv.Bool()
	case reflect.Slice, reflect.Array:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = nz.norm(rv.Index(i).Interface())
		}
		return out
	case reflect.Map:
		if rv.Type().Key().Kind() == reflect.String {
			out := make(map[string]any, rv.Len())
			it := rv.MapRange()
			for it.Next() {
				out[it.Key().String()] = nz.norm(it.Value().Interface())
			}
			return out
		}
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
		return nz.norm(rv.Elem().Interface())
	}
	return v
}

// ordered turns plain maps into *yamlx.Map with sorted keys, deeply, in
// place (for the schema); each shared value is visited once.
func ordered(v any) any {
	return orderer{}.order(v)
}

type orderer map[ref]any

func (o orderer) order(v any) any {
	id, ok := refOf(v)
	if !ok {
		return v
	}
	if out, ok := o[id]; ok {
		return out
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		m := yamlx.NewMap(len(keys))
		o[id] = m
		for _, k := range keys {
			m.Set(k, o.order(x[k]))
		}
		return m
	case *yamlx.Map:
		o[id] = x
		for _, k := range x.Keys() {
			e, _ := x.Get(k)
			if oe := o.order(e); !sameRef(oe, e) {
				x.Set(k, oe)
			}
		}
		return x
	case []any:
		o[id] = x
		for i, e := range x {
			x[i] = o.order(e)
		}
		return x
	}
	return v
}

func sameRef(a, b any) bool {
	ma, ok1 := a.(*yamlx.Map)
	mb, ok2 := b.(*yamlx.Map)
	if ok1 && ok2 {
		return ma == mb
	}
	_, isMap := b.(map[string]any)
	_, isList := b.([]any)
	return !isMap && !isList
}

// clone copies the mappings and lists of v, each once, so that a value
// held in several places is one value in the copy. With sortMaps, a
// map[string]any becomes a *yamlx.Map with its keys sorted.
func clone(v any, sortMaps bool) any {
	return cloner{seen: map[ref]any{}, sortMaps: sortMaps}.clone(v)
}

type cloner struct {
	seen     map[ref]any
	sortMaps bool
}

func (c cloner) clone(v any) any {
	id, ok := refOf(v)
	if !ok {
		if _, isList := v.([]any); isList {
			return []any{}
		}
		return v
	}
	if out, ok := c.seen[id]; ok {
		return out
	}
	switch x := v.(type) {
	case *yamlx.Map:
		m := yamlx.NewMap(x.Len())
		c.seen[id] = m
		for _, k := range x.Keys() {
			e, _ := x.Get(k)
			m.Set(k, c.clone(e))
		}
		return m
	case map[string]any:
		if c.sortMaps {
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			m := yamlx.NewMap(len(keys))
			c.seen[id] = m
			for _, k := range keys {
				m.Set(k, c.clone(x[k]))
			}
			return m
		}
		m := make(map[string]any, len(x))
		c.seen[id] = m
		for k, e := range x {
			m[k] = c.clone(e)
		}
		return m
	case []any:
		out := make([]any, len(x))
		c.seen[id] = out
		for i, e := range x {
			out[i] = c.clone(e)
		}
		return out
	}
	return v
}

// toJSON converts a value to what santhosh-tekuri validates. ok is false
// when the value holds something of no JSON type (a date, bytes, NaN or
// an infinity); with lenient (for the schema copy) those become strings
// or out-of-range numbers instead.
func toJSON(v any, lenient bool) (any, bool) {
	return jsoner{seen: map[ref]any{}, lenient: lenient}.json(v)
}

// jsoner converts each shared mapping or list once.
type jsoner struct {
	seen    map[ref]any
	lenient bool
}

func (c jsoner) json(v any) (any, bool) {
	id, shared := refOf(v)
	if shared {
		if out, ok := c.seen[id]; ok {
			return out, true
		}
	}
	out, ok := c.convert(v)
	if ok && shared {
		c.seen[id] = out
	}
	return out, ok
}

func (c jsoner) convert(v any) (any, bool) {
	lenient := c.lenient
	switch x := v.(type) {
	case nil, bool, string, int64:
		return v, true
	case *big.Int:
		return json.Number(x.String()), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			if !lenient {
				return nil, false
			}
			switch {
			case math.IsInf(x, 1):
				return json.Number("1e400"), true
			case math.IsInf(x, -1):
				return json.Number("-1e400"), true
			}
			return "nan", true
		}
		return x, true
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			j, ok := c.json(e)
			if !ok {
				return nil, false
			}
			out[i] = j
		}
		return out, true
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			j, ok := c.json(e)
			if !ok {
				return nil, false
			}
			out[k] = j
		}
		return out, true
	case *yamlx.Map:
		out := make(map[string]any, x.Len())
		for _, k := range x.Keys() {
			e, _ := x.Get(k)
			j, ok := c.json(e)
			if !ok {
				return nil, false
			}
			out[k] = j
		}
		return out, true
	}
	if lenient {
		return pyrepr.Str(v), true
	}
	return nil, false
}
