package yamlx

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// laughs is the "billion laughs" document with the given number of levels
// (each level ten aliases of the one before).
func laughs(levels int) string {
	var b strings.Builder
	b.WriteString("a0: &a0 [lol]\n")
	for i := 1; i <= levels; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	return b.String()
}

func TestHostileBillionLaughs(t *testing.T) {
	doc := laughs(9)
	var err error
	n := allocated(func() { _, err = UnmarshalOrdered("config", []byte(doc)) })
	want := "config:7: the document expands to more than 1000000 values through aliases (limit 1000000)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("errors.Is(err, ErrTooLarge) = false")
	}
	if n > 1<<20 {
		t.Errorf("allocated %d bytes for a %d-byte document, want < 1 MiB", n, len(doc))
	}
}

func TestHostileAliasesUnderLimit(t *testing.T) {
	// Five levels: 111111 values once expanded, under the limit; the
	// aliased values are shared, not copied.
	var v any
	var err error
	n := allocated(func() { v, err = UnmarshalOrdered("config", []byte(laughs(5))) })
	if err != nil {
		t.Fatal(err)
	}
	m := v.(*Map)
	a5, _ := m.Get("a5")
	a4, _ := m.Get("a4")
	if &a5.([]any)[0].([]any)[0] != &a4.([]any)[0] {
		t.Errorf("an alias gave a copy, not the anchor's value")
	}
	if n > 1<<20 {
		t.Errorf("allocated %d bytes, want < 1 MiB", n)
	}
}

func TestHostileDeepNesting(t *testing.T) {
	doc := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	var err error
	n := allocated(func() { _, err = UnmarshalOrdered("config", []byte(doc)) })
	if err != nil {
		t.Fatal(err)
	}
	if n > 64<<20 {
		t.Errorf("allocated %d bytes, want < 64 MiB", n)
	}
}

func TestHostileHugeArrayAndString(t *testing.T) {
	arr := "[" + strings.Repeat("1,", 200000) + "1]"
	var v any
	var err error
	n := allocated(func() { v, err = UnmarshalOrdered("config", []byte(arr)) })
	if err != nil || len(v.([]any)) != 200001 {
		t.Fatalf("err = %v", err)
	}
	if n > 200<<20 {
		t.Errorf("allocated %d bytes for a %d-byte array, want < 200 MiB", n, len(arr))
	}
	str := "s: " + strings.Repeat("x", 4<<20)
	n = allocated(func() { v, err = UnmarshalOrdered("config", []byte(str)) })
	if err != nil {
		t.Fatal(err)
	}
	if n > 64<<20 {
		t.Errorf("allocated %d bytes for a %d-byte string, want < 64 MiB", n, len(str))
	}
}

func TestHostileInvalidUTF8(t *testing.T) {
	_, err := UnmarshalOrdered("config", []byte("a: \xff\xfe\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "config:") {
		t.Fatalf("err = %v, want an error naming the file", err)
	}
	t.Log(err)
}
