package salgen_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExample_CompileErrors: the Go compiler rejects typed records used
// wrongly, naming the field or the types: a misspelled field, a string
// in a float field, an array of another length.
func TestExample_CompileErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command: not with -short")
	}
	dir := newScratch(t)
	cases := []struct {
		name, body string
		want       []string // nil: it builds
	}{
		{"valid", `_ = example.Scalars{Boolean0: true, Double0: 1.5, String0: "x"}
	var e example.EvtArrays
	e.Float0 = [5]float32{1, 2, 3, 4, 5}
	_ = e`, nil},
		{"misspelled", `_ = example.Scalars{Boolen0: true}`, []string{"unknown field Boolen0", "example.Scalars"}},
		{"stringtofloat", `var s example.Scalars
	s.Double0 = "1.5"
	_ = s`, []string{`"1.5"`, "float64"}},
		{"arraylength", `var e example.EvtArrays
	e.Float0 = [4]float32{1, 2, 3, 4}
	_ = e`, []string{"[4]float32", "[5]float32"}},
	}
	for _, c := range cases {
		src := "package main\n\nimport \"github.com/lsst-sal/salgo/examples/gen/example\"\n\nfunc main() {\n\t" + c.body + "\n}\n"
		if err := os.MkdirAll(filepath.Join(dir, c.name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.name, "main.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a guard
	defer cancel()
	for _, c := range cases {
		out, err := goCmd(ctx, dir, "build", "-o", os.DevNull, "./"+c.name)
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: go build: %v\n%s", c.name, err, out)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: go build succeeded", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the compiler's message does not name %s:\n%s", c.name, w, out)
			}
		}
		t.Logf("%s: %s", c.name, strings.TrimSpace(out))
	}
}
