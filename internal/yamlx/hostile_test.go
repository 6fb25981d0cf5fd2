package yamlx_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/internal/hostile"
	"github.com/lsst-sal/salgo/internal/yamlx"
)

// The hostile-bus tests: YAML that arrives in a command (a script's
// configure, a CSC's configuration files named by start) must be read in
// time and memory bounded by its size, or refused with a clear error.

func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %q", want)
	}
	if err.Error() != want {
		t.Fatalf("error\n got %q\nwant %q", err.Error(), want)
	}
}

const tooLarge = "the document expands to more than 1000000 nodes (scalars, sequences and mappings, each use of an alias counted in full): refused, as a YAML bomb"

func TestHostile_BillionLaughsRefused(t *testing.T) {
	doc := hostile.Laughs(9, "")
	if len(doc) != 414 {
		t.Fatalf("the 9-level document is %d bytes, want 414", len(doc))
	}
	var err error
	n := hostile.Allocated(func() { _, err = yamlx.UnmarshalOrdered("config", []byte(doc)) })
	// The line is that of the alias that crosses the limit: the seventh
	// level (9^7 strings) is the first too large.
	wantErr(t, err, "config:7: "+tooLarge)
	if !errors.Is(err, yamlx.ErrTooLarge) {
		t.Errorf("errors.Is(%v, ErrTooLarge) is false", err)
	}
	if n > 1<<20 {
		t.Errorf("refusing a %d-byte bomb allocated %d bytes, want < 1 MiB", len(doc), n)
	}
}

// TestHostile_AliasesStayShared: a six-level bomb (531441 strings once
// expanded, 672610 nodes, under the limit) is read without expanding it: an
// alias gives the same Go value, mappings and lists alike, as PyYAML gives
// the same object.
func TestHostile_AliasesStayShared(t *testing.T) {
	doc := hostile.Laughs(6, "")
	var v any
	var err error
	n := hostile.Allocated(func() { v, err = yamlx.Unmarshal("config", []byte(doc)) })
	if err != nil {
		t.Fatal(err)
	}
	if n > 1<<20 {
		t.Errorf("reading a %d-byte six-level bomb allocated %d bytes, want < 1 MiB (aliases expanded?)", len(doc), n)
	}
	m := v.(map[string]any)
	f, e := m["f"].([]any), m["e"].([]any)
	if len(f) != 9 || &f[0].([]any)[0] != &f[8].([]any)[0] || &f[0].([]any)[0] != &e[0] {
		t.Error("the aliases of e are not the same list")
	}
	v, err = yamlx.Unmarshal("config", []byte("a: &x {k: [1]}\nb: *x\nc: {<<: *x}\n"))
	if err != nil {
		t.Fatal(err)
	}
	m = v.(map[string]any)
	a, b, c := m["a"].(map[string]any), m["b"].(map[string]any), m["c"].(map[string]any)
	a["new"] = 1
	if b["new"] != 1 || c["new"] != nil || &a["k"].([]any)[0] != &c["k"].([]any)[0] {
		t.Errorf("a=%v b=%v c=%v: want a and b one map, c a new map sharing the list", a, b, c)
	}
}

func TestHostile_MergeKeyBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a: &a {x: 1, y: 2}\n")
	for i := 1; i < 9; i++ {
		prev, cur := string(rune('a'+i-1)), string(rune('a'+i))
		fmt.Fprintf(&b, "%s: &%s {<<: [%s]}\n", cur, cur, strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", "))
	}
	var err error
	n := hostile.Allocated(func() { _, err = yamlx.UnmarshalOrdered("merge.yaml", []byte(b.String())) })
	wantErr(t, err, "merge.yaml:7: "+tooLarge)
	if n > 1<<20 {
		t.Errorf("refusing a merge-key bomb allocated %d bytes, want < 1 MiB", n)
	}
}

// TestHostile_LimitIsExact: MaxNodes nodes are read; one more is refused,
// with the line of the node that crosses the limit. Aliases make the
// documents small.
func TestHostile_LimitIsExact(t *testing.T) {
	if yamlx.MaxNodes != 1_000_000 {
		t.Fatalf("MaxNodes = %d; the documents below are built for 1000000", yamlx.MaxNodes)
	}
	// The root list (1), the anchored list of 999 (1000), 998 aliases of it
	// (998000) and 999 scalars: 1000000.
	doc := "- &x [" + strings.Repeat("0, ", 998) + "0]\n" + strings.Repeat("- *x\n", 998) + strings.Repeat("- 0\n", 999)
	v, err := yamlx.UnmarshalOrdered("exact.yaml", []byte(doc))
	if err != nil {
		t.Fatalf("a document of exactly MaxNodes nodes: %v", err)
	}
	if l := v.([]any); len(l) != 1+998+999 {
		t.Fatalf("read %d items", len(l))
	}
	_, err = yamlx.UnmarshalOrdered("exact.yaml", []byte(doc+"- 1\n"))
	wantErr(t, err, fmt.Sprintf("exact.yaml:%d: %s", 1+998+999+1, tooLarge))
}

// TestHostile_DeepNesting: the YAML library stops at a depth of 10000, as
// it scans, before building anything deep; just under it the document is
// read (no stack overflow, memory linear in the size).
func TestHostile_DeepNesting(t *testing.T) {
	for _, doc := range []string{strings.Repeat("[", 100000), strings.Repeat("{a: ", 100000), strings.Repeat("- ", 100000) + "x"} {
		var err error
		n := hostile.Allocated(func() { _, err = yamlx.UnmarshalOrdered("config", []byte(doc)) })
		wantErr(t, err, "config:1: exceeded max depth of 10000")
		if n > 128*uint64(len(doc)) {
			t.Errorf("%.10q x 100000: allocated %d bytes for %d, want < 128 per byte", doc, n, len(doc))
		}
	}
	doc := strings.Repeat("[", 9999) + "1" + strings.Repeat("]", 9999)
	var v any
	var err error
	n := hostile.Allocated(func() { v, err = yamlx.Unmarshal("config", []byte(doc)) })
	if err != nil {
		t.Fatal(err)
	}
	depth := 0
	for l, ok := v.([]any); ok; l, ok = l[0].([]any) {
		depth++
	}
	if depth != 9999 {
		t.Errorf("depth %d, want 9999", depth)
	}
	if n > 1024*uint64(len(doc)) {
		t.Errorf("9999 nested lists: allocated %d bytes for %d, want < 1024 per byte", n, len(doc))
	}
}

func TestHostile_HugeArrayAndString(t *testing.T) {
	doc := "[" + strings.Repeat("0, ", 99999) + "0]"
	var v any
	var err error
	n := hostile.Allocated(func() { v, err = yamlx.Unmarshal("config", []byte(doc)) })
	if err != nil || len(v.([]any)) != 100000 {
		t.Fatalf("100000 items: %v", err)
	}
	if n > 256*uint64(len(doc)) {
		t.Errorf("100000 items: allocated %d bytes for %d, want < 256 per byte", n, len(doc))
	}
	doc = "k: " + strings.Repeat("x", 1<<20) + "\n"
	n = hostile.Allocated(func() { v, err = yamlx.Unmarshal("config", []byte(doc)) })
	if err != nil || len(v.(map[string]any)["k"].(string)) != 1<<20 {
		t.Fatalf("a 1 MiB string: %v", err)
	}
	if n > 16*uint64(len(doc)) {
		t.Errorf("a 1 MiB string: allocated %d bytes, want < 16 per byte", n)
	}
}

func TestHostile_InvalidUTF8(t *testing.T) {
	for doc, want := range map[string]string{
		"k: \xff\xfe\n":     "config:1: invalid leading UTF-8 octet",
		"k: ok\nl: \xc3(\n": "config:1: invalid trailing UTF-8 octet",
	} {
		var err error
		n := hostile.Allocated(func() { _, err = yamlx.UnmarshalOrdered("config", []byte(doc)) })
		wantErr(t, err, want)
		if n > 64<<10 {
			t.Errorf("%q: allocated %d bytes", doc, n)
		}
	}
}
