package jsonschema

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/lsst-sal/salgo/internal/pyrepr"
	"github.com/lsst-sal/salgo/internal/yamlx"
)

// The walk below follows Python jsonschema 4.26's Draft7Validator: the
// keywords of each schema in written order ($ref alone when present), each
// keyword's own loop order, and lazy generators (the first error stops
// everything, except where Python collects a branch's errors in a list).

// errUnresolved stops the walk at a construct it does not follow.
var errUnresolved = errors.New("not followed by the Python-order walk")

type yieldFn func(*ValidationError) bool

type walker struct {
	root    any
	mu      sync.Mutex
	regexps map[string]*regexp.Regexp
}

func newWalker(root any) *walker {
	return &walker{root: root, regexps: map[string]*regexp.Regexp{}}
}

// run is one walk: the defaults flag, the first "unresolved" failure, and
// the memo of shared values.
//
// A mapping or list may be reached several times (a YAML alias is one Go
// value, as in Python); the walk of a (value, schema) pair is remembered
// (valid, or its first error) and replayed instead of repeated, which keeps
// the work linear in the number of distinct values, not in the size of the
// expanded tree. Replaying one error stands for all of the walk's errors
// because every yield callback either stops at the first error (first,
// valid) or only notes that there was one (anyOf's and oneOf's branches
// while filling defaults).
//
//   - validating (no defaults), nothing changes during the walk, so the
//     result of a pair is final, even of a walk stopped at its first error;
//   - filling defaults (salobj's DefaultingValidator mutates the instance
//     in place, as here), only a walk that went to its end and filled
//     nothing is remembered, and only until a default is filled anywhere
//     (gen): Python would repeat the walk and, with the instance unchanged,
//     find the same errors and nothing to fill. A shared value may so be
//     walked again after each default filled elsewhere: at worst as often
//     as it is used, a number internal/yamlx bounds (MaxNodes).
type run struct {
	w        *walker
	defaults bool
	err      error
	memo     map[memoKey]memoEntry
	gen      uint64 // defaults filled so far
}

type memoKey struct {
	inst   ref
	schema *yamlx.Map
}

type memoEntry struct {
	gen   uint64
	first *ValidationError // nil: valid
}

// ref identifies a mapping or a non-empty list by identity.
type ref struct {
	m    *yamlx.Map
	p    uintptr // a map[string]any
	list *any    // a []any: its first element and length
	n    int
}

func refOf(v any) (ref, bool) {
	switch x := v.(type) {
	case *yamlx.Map:
		return ref{m: x}, x != nil
	case map[string]any:
		return ref{p: reflect.ValueOf(x).Pointer()}, x != nil
	case []any:
		if len(x) > 0 {
			return ref{list: &x[0], n: len(x)}, true
		}
	}
	return ref{}, false
}

// first returns the first error for inst, or nil; err is set when the walk
// met something it does not follow (and so could not decide).
func (w *walker) first(inst, schema any, defaults bool) (*ValidationError, error) {
	r := &run{w: w, defaults: defaults, memo: map[memoKey]memoEntry{}}
	var found *ValidationError
	r.iter(inst, schema, func(e *ValidationError) bool {
		found = e
		return false
	})
	if r.err != nil {
		return nil, r.err
	}
	if found != nil && found.lazy != nil {
		found.Message, found.lazy = found.lazy(), nil
	}
	return found, nil
}

func (w *walker) regexp(p string) (*regexp.Regexp, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if re, ok := w.regexps[p]; ok {
		return re, nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("pattern %s: %w", pyrepr.String(p), errUnresolved)
	}
	w.regexps[p] = re
	return re, nil
}

func (r *run) fail(err error) bool {
	if r.err == nil {
		r.err = err
	}
	return false
}

// search is Python's re.search(pattern, s) != None.
func (r *run) search(pattern, s string) (bool, bool) {
	re, err := r.w.regexp(pattern)
	if err != nil {
		r.fail(err)
		return false, false
	}
	return re.MatchString(s), true
}

func (r *run) iter(inst, schema any, yield yieldFn) bool {
	switch s := schema.(type) {
	case bool:
		if s {
			return true
		}
		return yield(&ValidationError{lazy: func() string { return "False schema does not allow " + pyrepr.Repr(inst) }, Instance: inst, Schema: false, set: true})
	case *yamlx.Map:
		id, shared := refOf(inst)
		if !shared {
			return r.keywords(inst, s, yield)
		}
		key := memoKey{id, s}
		if e, ok := r.memo[key]; ok && e.gen == r.gen {
			if e.first == nil {
				return true
			}
			c := *e.first
			return yield(&c)
		}
		gen := r.gen
		var first *ValidationError
		cont := r.keywords(inst, s, func(e *ValidationError) bool {
			if first == nil {
				c := *e // the paths below are replaced, never changed in place
				first = &c
			}
			return yield(e)
		})
		if r.err == nil && r.gen == gen && (cont || !r.defaults) {
			r.memo[key] = memoEntry{gen: gen, first: first}
		}
		return cont
	}
	return r.fail(fmt.Errorf("schema %s is neither a mapping nor a boolean: %w", pyrepr.Repr(schema), errUnresolved))
}

// keywords walks the keywords of schema s for inst.
func (r *run) keywords(inst any, s *yamlx.Map, yield yieldFn) bool {
	keys := s.Keys()
	if ref, ok := s.Get("$ref"); ok && ref != nil {
		keys = []string{"$ref"}
	}
	for _, k := range keys {
		kw := keywords[k]
		if kw == nil {
			continue
		}
		v, _ := s.Get(k)
		cont := kw(r, v, inst, s, func(e *ValidationError) bool {
			if !e.set {
				e.Keyword, e.KeywordValue, e.Instance, e.Schema, e.set = k, v, inst, s, true
			}
			if k != "if" && k != "$ref" {
				e.SchemaPath = prepend(k, e.SchemaPath)
			}
			return yield(e)
		})
		if !cont || r.err != nil {
			return false
		}
	}
	return true
}

// descend is Python's validator.descend: path and schemaPath (nil for
// none) are put in front of the paths of the errors found below.
func (r *run) descend(inst, schema any, path, schemaPath any, yield yieldFn) bool {
	if _, ok := schema.(bool); ok {
		return r.iter(inst, schema, yield) // Python yields a false schema's error without the paths
	}
	return r.iter(inst, schema, func(e *ValidationError) bool {
		if schemaPath != nil {
			e.SchemaPath = prepend(schemaPath, e.SchemaPath)
		}
		if path != nil {
			e.Path = prepend(path, e.Path)
		}
		return yield(e)
	})
}

func (r *run) valid(inst, schema any) bool {
	ok := true
	r.iter(inst, schema, func(*ValidationError) bool { ok = false; return false })
	return ok
}

// branchValid is anyOf's and oneOf's test of one branch. Python collects
// every error of the branch (list(descend(...))), which matters only when
// filling defaults: the whole branch is walked, filling as it goes. When
// only validating, the first error decides.
func (r *run) branchValid(inst, schema any, schemaPath any) bool {
	if !r.defaults {
		return r.valid(inst, schema)
	}
	failed := false
	r.descend(inst, schema, nil, schemaPath, func(*ValidationError) bool { failed = true; return true })
	return !failed
}

func prepend(x any, list []any) []any {
	return append([]any{x}, list...)
}

// newErr makes an error whose message is written only if the error leaves
// the walk (see first): errors that only decide a branch (anyOf, not, if,
// ...) would otherwise print their instance, a shared value as many times
// as it is reached.
func newErr(msg func() string) *ValidationError { return &ValidationError{lazy: msg} }

type keyword func(r *run, v, inst any, schema *yamlx.Map, yield yieldFn) bool

var keywords map[string]keyword

func init() {
	keywords = map[string]keyword{
		"$ref":                 kwRef,
		"additionalItems":      kwAdditionalItems,
		"additionalProperties": kwAdditionalProperties,
		"allOf":                kwAllOf,
		"anyOf":                kwAnyOf,
		"const":                kwConst,
		"contains":             kwContains,
		"dependencies":         kwDependencies,
		"enum":                 kwEnum,
		"exclusiveMaximum":     kwExclusiveMaximum,
		"exclusiveMinimum":     kwExclusiveMinimum,
		"if":                   kwIf,
		"items":                kwItems,
		"maxItems":             kwMaxItems,
		"maxLength":            kwMaxLength,
		"maxProperties":        kwMaxProperties,
		"maximum":              kwMaximum,
		"minItems":             kwMinItems,
		"minLength":            kwMinLength,
		"minProperties":        kwMinProperties,
		"minimum":              kwMinimum,
		"multipleOf":           kwMultipleOf,
		"not":                  kwNot,
		"oneOf":                kwOneOf,
		"pattern":              kwPattern,
		"patternProperties":    kwPatternProperties,
		"properties":           kwProperties,
		"propertyNames":        kwPropertyNames,
		"required":             kwRequired,
		"type":                 kwType,
		"uniqueItems":          kwUniqueItems,
		// "format" is not asserted: salobj's validators have no format checker.
	}
}

// --- the value model --------------------------------------------------------

// object gives an instance mapping's keys in Python's iteration order
// (written order for *yamlx.Map, sorted for map[string]any).
func object(v any) (keys []string, get func(string) (any, bool), ok bool) {
	switch x := v.(type) {
	case *yamlx.Map:
		return x.Keys(), x.Get, true
	case map[string]any:
		keys = make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return keys, func(k string) (any, bool) { e, ok := x[k]; return e, ok }, true
	}
	return nil, nil, false
}

func has(v any, k string) bool {
	_, get, ok := object(v)
	if !ok {
		return false
	}
	_, in := get(k)
	return in
}

func isType(v any, t string) bool {
	switch t {
	case "array":
		_, ok := v.([]any)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "object":
		_, _, ok := object(v)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "integer":
		switch x := v.(type) {
		case int64, *big.Int:
			return true
		case float64:
			return !math.IsInf(x, 0) && x == math.Trunc(x)
		}
		return false
	case "number":
		switch v.(type) {
		case int64, *big.Int, float64:
			return true
		}
		return false
	}
	return false
}

// num is a number for exact comparison (Python compares int and float
// exactly). nan and inf are kept aside.
type num struct {
	rat *big.Rat
	f   float64 // valid when rat == nil: nan or ±inf
}

func toNum(v any) (num, bool) {
	switch x := v.(type) {
	case int64:
		return num{rat: new(big.Rat).SetInt64(x)}, true
	case *big.Int:
		return num{rat: new(big.Rat).SetInt(x)}, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return num{f: x}, true
		}
		return num{rat: new(big.Rat).SetFloat64(x)}, true
	}
	return num{}, false
}

// cmp returns -1, 0, 1, or ok=false when either is nan (every comparison
// false) or not a number.
func cmpNum(a, b any) (int, bool) {
	x, ok1 := toNum(a)
	y, ok2 := toNum(b)
	if !ok1 || !ok2 || (x.rat == nil && math.IsNaN(x.f)) || (y.rat == nil && math.IsNaN(y.f)) {
		return 0, false
	}
	fx, fy := 0.0, 0.0
	if x.rat == nil {
		fx = x.f
	}
	if y.rat == nil {
		fy = y.f
	}
	switch {
	case x.rat == nil || y.rat == nil:
		if x.rat != nil {
			fx = 0 // finite vs infinite: only the infinity's sign matters
		}
		if y.rat != nil {
			fy = 0
		}
		switch {
		case fx < fy:
			return -1, true
		case fx > fy:
			return 1, true
		}
		return 0, true
	}
	return x.rat.Cmp(y.rat), true
}

// equal is jsonschema's _utils.equal: strings only equal strings, lists and
// mappings compare item by item, a bool only equals the same bool, and
// numbers compare by value (1 == 1.0).
func equal(a, b any) bool {
	if ra, ok := refOf(a); ok { // Python's "one is two": an alias equals itself
		if rb, ok := refOf(b); ok && ra == rb {
			return true
		}
	}
	as, aStr := a.(string)
	bs, bStr := b.(string)
	if aStr || bStr {
		return aStr && bStr && as == bs
	}
	al, aList := a.([]any)
	bl, bList := b.([]any)
	if aList && bList {
		if len(al) != len(bl) {
			return false
		}
		for i := range al {
			if !equal(al[i], bl[i]) {
				return false
			}
		}
		return true
	}
	ak, aget, aObj := object(a)
	bk, bget, bObj := object(b)
	if aObj && bObj {
		if len(ak) != len(bk) {
			return false
		}
		for _, k := range ak {
			bv, ok := bget(k)
			av, _ := aget(k)
			if !ok || !equal(av, bv) {
				return false
			}
		}
		return true
	}
	ab, aBool := a.(bool)
	bb, bBool := b.(bool)
	if aBool || bBool {
		return aBool && bBool && ab == bb
	}
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if c, ok := cmpNum(a, b); ok {
		return c == 0
	}
	if _, isNum := toNum(a); isNum {
		return false
	}
	switch x := a.(type) {
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case yamlx.Date:
		y, ok := b.(yamlx.Date)
		return ok && x == y
	case yamlx.Timestamp:
		y, ok := b.(yamlx.Timestamp)
		return ok && x.Naive == y.Naive && x.Time.Equal(y.Time)
	}
	return false
}

func length(v any) (int, bool) {
	switch x := v.(type) {
	case string:
		return utf8.RuneCountInString(x), true
	case []any:
		return len(x), true
	}
	if keys, _, ok := object(v); ok {
		return len(keys), true
	}
	return 0, false
}

// --- keywords ---------------------------------------------------------------

func kwRef(r *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	ref, ok := v.(string)
	if !ok {
		return r.fail(fmt.Errorf("$ref %s: %w", pyrepr.Repr(v), errUnresolved))
	}
	target, err := r.w.resolve(ref)
	if err != nil {
		return r.fail(err)
	}
	return r.descend(inst, target, nil, nil, yield)
}

// resolve follows a $ref within the schema document: "#", "#/json/pointer",
// or the same with the document's own "$id" in front.
func (w *walker) resolve(ref string) (any, error) {
	base, frag, _ := strings.Cut(ref, "#")
	if base != "" {
		id := ""
		if m, ok := w.root.(*yamlx.Map); ok {
			if v, ok := m.Get("$id"); ok {
				id, _ = v.(string)
			}
		}
		if id == "" || strings.TrimSuffix(id, "#") != base {
			return nil, fmt.Errorf("$ref %s: %w", pyrepr.String(ref), errUnresolved)
		}
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil, fmt.Errorf("$ref %s: %w", pyrepr.String(ref), errUnresolved)
	}
	cur := w.root
	if frag == "" {
		return cur, nil
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, fmt.Errorf("$ref %s: %w", pyrepr.String(ref), errUnresolved)
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case *yamlx.Map:
			next, ok := x.Get(tok)
			if !ok {
				return nil, fmt.Errorf("$ref %s: %w", pyrepr.String(ref), errUnresolved)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, fmt.Errorf("$ref %s: %w", pyrepr.String(ref), errUnresolved)
			}
			cur = x[i]
		default:
			return nil, fmt.Errorf("$ref %s: %w", pyrepr.String(ref), errUnresolved)
		}
	}
	return cur, nil
}

func extrasMsg(extras []any) string {
	parts := make([]string, len(extras))
	for i, e := range extras {
		parts[i] = pyrepr.Repr(e)
	}
	verb := "were"
	if len(extras) == 1 {
		verb = "was"
	}
	return strings.Join(parts, ", ") + " " + verb
}

func kwAdditionalItems(r *run, v, inst any, schema *yamlx.Map, yield yieldFn) bool {
	list, ok := inst.([]any)
	if !ok {
		return true
	}
	items, hasItems := schema.Get("items")
	if !hasItems {
		return true // items defaults to {}, an object: nothing to do
	}
	if _, _, isObj := object(items); isObj {
		return true
	}
	n := 0
	if l, ok := items.([]any); ok {
		n = len(l)
	}
	if _, _, isObj := object(v); isObj {
		for i := n; i < len(list); i++ {
			if !r.descend(list[i], v, i, nil, yield) {
				return false
			}
		}
		return true
	}
	if b, ok := v.(bool); ok && !b && len(list) > n {
		return yield(newErr(func() string { return "Additional items are not allowed (" + extrasMsg(list[n:]) + " unexpected)" }))
	}
	return true
}

func kwAdditionalProperties(r *run, v, inst any, schema *yamlx.Map, yield yieldFn) bool {
	keys, get, ok := object(inst)
	if !ok {
		return true
	}
	props, _ := schema.Get("properties")
	pp, hasPP := schema.Get("patternProperties")
	ppKeys, _, _ := object(pp)
	patterns := strings.Join(ppKeys, "|")
	var extras []string
	for _, k := range keys {
		if has(props, k) {
			continue
		}
		if patterns != "" {
			m, ok := r.search(patterns, k)
			if !ok {
				return false
			}
			if m {
				continue
			}
		}
		extras = append(extras, k)
	}
	if _, _, isObj := object(v); isObj {
		for _, k := range extras {
			e, _ := get(k)
			if !r.descend(e, v, k, nil, yield) {
				return false
			}
		}
		return true
	}
	if b, ok := v.(bool); ok && !b && len(extras) > 0 {
		sorted := append([]string(nil), extras...)
		sort.Strings(sorted)
		if hasPP {
			verb := "do"
			if len(extras) == 1 {
				verb = "does"
			}
			sp := append([]string(nil), ppKeys...)
			sort.Strings(sp)
			return yield(newErr(func() string { return reprJoin(sorted) + " " + verb + " not match any of the regexes: " + reprJoin(sp) }))
		}
		list := make([]any, len(sorted))
		for i, s := range sorted {
			list[i] = s
		}
		return yield(newErr(func() string { return "Additional properties are not allowed (" + extrasMsg(list) + " unexpected)" }))
	}
	return true
}

func reprJoin(list []string) string {
	parts := make([]string, len(list))
	for i, s := range list {
		parts[i] = pyrepr.String(s)
	}
	return strings.Join(parts, ", ")
}

func kwAllOf(r *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	list, _ := v.([]any)
	for i, sub := range list {
		if !r.descend(inst, sub, nil, i, yield) {
			return false
		}
	}
	return true
}

func kwAnyOf(r *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	list, _ := v.([]any)
	for i, sub := range list {
		if r.branchValid(inst, sub, i) {
			return r.err == nil
		}
		if r.err != nil {
			return false
		}
	}
	return yield(newErr(func() string { return pyrepr.Repr(inst) + " is not valid under any of the given schemas" }))
}

func kwOneOf(r *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	list, _ := v.([]any)
	firstValid := -1
	for i, sub := range list {
		ok := r.branchValid(inst, sub, i)
		if r.err != nil {
			return false
		}
		if ok {
			firstValid = i
			break
		}
	}
	if firstValid < 0 {
		return yield(newErr(func() string { return pyrepr.Repr(inst) + " is not valid under any of the given schemas" }))
	}
	var more []any
	for _, sub := range list[firstValid+1:] {
		if r.valid(inst, sub) {
			more = append(more, sub)
		}
	}
	if r.err != nil {
		return false
	}
	if len(more) > 0 {
		more = append(more, list[firstValid])
		parts := make([]string, len(more))
		for i, s := range more {
			parts[i] = pyrepr.Repr(s)
		}
		return yield(newErr(func() string { return pyrepr.Repr(inst) + " is valid under each of " + strings.Join(parts, ", ") }))
	}
	return true
}

func kwConst(_ *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	if !equal(inst, v) {
		return yield(newErr(func() string { return pyrepr.Repr(v) + " was expected" }))
	}
	return true
}

func kwContains(r *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	list, ok := inst.([]any)
	if !ok {
		return true
	}
	for _, e := range list {
		if r.valid(e, v) {
			return true
		}
	}
	if r.err != nil {
		return false
	}
	return yield(newErr(func() string { return "None of " + pyrepr.Repr(inst) + " are valid under the given schema" }))
}

func kwDependencies(r *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	if _, _, ok := object(inst); !ok {
		return true
	}
	deps, get, _ := object(v)
	for _, prop := range deps {
		if !has(inst, prop) {
			continue
		}
		dep, _ := get(prop)
		if list, ok := dep.([]any); ok {
			for _, each := range list {
				s, _ := each.(string)
				if !has(inst, s) {
					if !yield(newErr(func() string { return pyrepr.Repr(each) + " is a dependency of " + pyrepr.String(prop) })) {
						return false
					}
				}
			}
			continue
		}
		if !r.descend(inst, dep, nil, prop, yield) {
			return false
		}
	}
	return true
}

func kwEnum(_ *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	list, _ := v.([]any)
	for _, e := range list {
		if equal(e, inst) {
			return true
		}
	}
	return yield(newErr(func() string { return pyrepr.Repr(inst) + " is not one of " + pyrepr.Repr(v) }))
}

func numberKeyword(fails func(c int) bool, words string) keyword {
	return func(_ *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
		if !isType(inst, "number") {
			return true
		}
		if c, ok := cmpNum(inst, v); ok && fails(c) {
			return yield(newErr(func() string { return pyrepr.Repr(inst) + words + pyrepr.Repr(v) }))
		}
		return true
	}
}

var (
	kwMinimum          = numberKeyword(func(c int) bool { return c < 0 }, " is less than the minimum of ")
	kwMaximum          = numberKeyword(func(c int) bool { return c > 0 }, " is greater than the maximum of ")
	kwExclusiveMinimum = numberKeyword(func(c int) bool { return c <= 0 }, " is less than or equal to the minimum of ")
	kwExclusiveMaximum = numberKeyword(func(c int) bool { return c >= 0 }, " is greater than or equal to the maximum of ")
)

func kwMultipleOf(_ *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	if !isType(inst, "number") {
		return true
	}
	failed := false
	if d, isFloat := v.(float64); isFloat {
		x, _ := toFloat(inst)
		q := x / d
		switch {
		case math.IsNaN(q):
			failed = true
		case math.IsInf(q, 0):
			// Python falls back to exact fractions.
			a, ok1 := toNum(inst)
			b, ok2 := toNum(v)
			failed = !ok1 || !ok2 || a.rat == nil || b.rat == nil || b.rat.Sign() == 0 ||
				!new(big.Rat).Quo(a.rat, b.rat).IsInt()
		default:
			failed = q != math.Trunc(q)
		}
	} else {
		a, ok1 := toNum(inst)
		b, ok2 := toNum(v)
		switch {
		case !ok1 || !ok2 || b.rat == nil || b.rat.Sign() == 0:
			failed = true
		case a.rat == nil:
			failed = true // inf or nan % n is nan: truthy
		default:
			failed = !new(big.Rat).Quo(a.rat, b.rat).IsInt()
		}
	}
	if failed {
		return yield(newErr(func() string { return pyrepr.Repr(inst) + " is not a multiple of " + pyrepr.Str(v) }))
	}
	return true
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return f, true
	case float64:
		return x, true
	}
	return 0, false
}

func sizeKeyword(kind string, tooFew bool, one, many string) keyword {
	return func(_ *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
		if !isType(inst, kind) {
			return true
		}
		n, _ := length(inst)
		c, ok := cmpNum(int64(n), v)
		if !ok || (tooFew && c >= 0) || (!tooFew && c <= 0) {
			return true
		}
		words := many
		limit := int64(0)
		if tooFew {
			limit = 1
		}
		if lc, ok := cmpNum(v, limit); ok && lc == 0 {
			words = one
		}
		return yield(newErr(func() string { return pyrepr.Repr(inst) + " " + words }))
	}
}

var (
	kwMinItems      = sizeKeyword("array", true, "should be non-empty", "is too short")
	kwMaxItems      = sizeKeyword("array", false, "is expected to be empty", "is too long")
	kwMinLength     = sizeKeyword("string", true, "should be non-empty", "is too short")
	kwMaxLength     = sizeKeyword("string", false, "is expected to be empty", "is too long")
	kwMinProperties = sizeKeyword("object", true, "should be non-empty", "does not have enough properties")
	kwMaxProperties = sizeKeyword("object", false, "is expected to be empty", "has too many properties")
)

func kwIf(r *run, v, inst any, schema *yamlx.Map, yield yieldFn) bool {
	if r.valid(inst, v) {
		if then, ok := schema.Get("then"); ok {
			return r.descend(inst, then, nil, "then", yield)
		}
	} else if r.err == nil {
		if els, ok := schema.Get("else"); ok {
			return r.descend(inst, els, nil, "else", yield)
		}
	}
	return r.err == nil
}

func kwItems(r *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	list, ok := inst.([]any)
	if !ok {
		return true
	}
	if subs, ok := v.([]any); ok {
		for i := 0; i < len(list) && i < len(subs); i++ {
			if !r.descend(list[i], subs[i], i, i, yield) {
				return false
			}
		}
		return true
	}
	for i, e := range list {
		if !r.descend(e, v, i, nil, yield) {
			return false
		}
	}
	return true
}

func kwNot(r *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	if r.valid(inst, v) {
		return yield(newErr(func() string { return pyrepr.Repr(inst) + " should not be valid under " + pyrepr.Repr(v) }))
	}
	return r.err == nil
}

func kwPattern(r *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	s, ok := inst.(string)
	p, isStr := v.(string)
	if !ok || !isStr {
		return true
	}
	m, ok := r.search(p, s)
	if !ok {
		return false
	}
	if !m {
		return yield(newErr(func() string { return pyrepr.String(s) + " does not match " + pyrepr.String(p) }))
	}
	return true
}

func kwPatternProperties(r *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	keys, get, ok := object(inst)
	if !ok {
		return true
	}
	pats, pget, _ := object(v)
	for _, p := range pats {
		sub, _ := pget(p)
		for _, k := range keys {
			m, ok := r.search(p, k)
			if !ok {
				return false
			}
			if m {
				e, _ := get(k)
				if !r.descend(e, sub, k, p, yield) {
					return false
				}
			}
		}
	}
	return true
}

// defaultSkip is the set of property names DefaultingValidator leaves alone.
var defaultSkip = map[string]bool{
	"additionalItems": true, "additionalProperties": true, "definitions": true, "default": true,
	"items": true, "patternProperties": true, "property": true, "properties": true,
	"readOnly": true, "uniqueItems": true,
}

func kwProperties(r *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	props, pget, _ := object(v)
	if r.defaults {
		r.setDefaults(props, pget, inst)
	}
	if _, _, ok := object(inst); !ok {
		return true
	}
	_, get, _ := object(inst)
	for _, p := range props {
		e, ok := get(p)
		if !ok {
			continue
		}
		sub, _ := pget(p)
		if !r.descend(e, sub, p, p, yield) {
			return false
		}
	}
	return true
}

// setDefaults is the part of salobj's DefaultingValidator that runs before
// the properties checks. Each default filled in is a copy of the schema's
// (Python inserts the schema's own object, shared by every instance that
// gets it; filling defaults inside it then changes the schema).
func (r *run) setDefaults(props []string, pget func(string) (any, bool), inst any) {
	setdefault := func(k string, val any) {
		switch m := inst.(type) {
		case *yamlx.Map:
			if _, ok := m.Get(k); !ok {
				m.Set(k, clone(val, false))
				r.gen++
			}
		case map[string]any:
			if _, ok := m[k]; !ok {
				m[k] = yamlx.Plain(clone(val, false))
				r.gen++
			}
		}
	}
	if _, _, ok := object(inst); !ok {
		return
	}
	for _, p := range props {
		sv, _ := pget(p)
		sub, ok := sv.(*yamlx.Map)
		if !ok || defaultSkip[p] {
			continue
		}
		if d, ok := sub.Get("default"); ok {
			setdefault(p, d)
			continue
		}
		t, _ := sub.Get("type")
		subProps, hasProps := sub.Get("properties")
		if t != "object" || !hasProps {
			continue
		}
		names, get, _ := object(subProps)
		defs := yamlx.NewMap(0)
		for _, n := range names {
			spv, _ := get(n)
			if sp, ok := spv.(*yamlx.Map); ok {
				if d, ok := sp.Get("default"); ok {
					defs.Set(n, d)
				}
			}
		}
		if defs.Len() > 0 {
			setdefault(p, defs)
		}
	}
}

func kwPropertyNames(r *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	keys, _, ok := object(inst)
	if !ok {
		return true
	}
	for _, k := range keys {
		if !r.descend(k, v, nil, nil, yield) {
			return false
		}
	}
	return true
}

func kwRequired(_ *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	if _, _, ok := object(inst); !ok {
		return true
	}
	list, _ := v.([]any)
	for _, p := range list {
		s, _ := p.(string)
		if !has(inst, s) {
			if !yield(newErr(func() string { return pyrepr.Repr(p) + " is a required property" })) {
				return false
			}
		}
	}
	return true
}

func kwType(_ *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	types, ok := v.([]any)
	if !ok {
		types = []any{v}
	}
	for _, t := range types {
		if s, ok := t.(string); ok && isType(inst, s) {
			return true
		}
	}
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = pyrepr.Repr(t)
	}
	return yield(newErr(func() string { return pyrepr.Repr(inst) + " is not of type " + strings.Join(parts, ", ") }))
}

func kwUniqueItems(_ *run, v, inst any, _ *yamlx.Map, yield yieldFn) bool {
	if b, ok := v.(bool); !ok || !b {
		return true
	}
	list, ok := inst.([]any)
	if !ok {
		return true
	}
	for i := range list {
		for j := i + 1; j < len(list); j++ {
			if equal(list[i], list[j]) {
				return yield(newErr(func() string { return pyrepr.Repr(inst) + " has non-unique elements" }))
			}
		}
	}
	return true
}
