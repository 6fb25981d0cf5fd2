package salgen_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/internal/salgen"
	salxml "github.com/lsst-sal/salgo/xml"
)

const regenerate = "regenerate it with `go generate ./examples/gen` (salgen -xml= -out examples/gen Example)"

// TestGolden: examples/gen/example is what salgen generates from the
// embedded definitions now, file for file and byte for byte, with no
// generated file left over.
func TestGolden(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "gen", "example")
	files, err := salgen.Files(salxml.Embedded(), "Example", salgen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, f := range files {
		want[f.Name] = true
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Name)))
		if err != nil {
			t.Errorf("%v: %s", err, regenerate)
			continue
		}
		if !bytes.Equal(got, f.Data) {
			t.Errorf("%s/%s differs from what salgen generates: %s", dir, f.Name, regenerate)
		}
	}
	// Nothing generated is left over.
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if want[rel] {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasPrefix(rel, "defs/") || bytes.HasPrefix(data, []byte(salgen.Header)) {
			t.Errorf("%s/%s is not generated any more: %s", dir, rel, regenerate)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFiles_Deterministic: two runs give the same files.
func TestFiles_Deterministic(t *testing.T) {
	a, err := salgen.Files(salxml.Embedded(), "Example", salgen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := salgen.Files(salxml.Embedded(), "Example", salgen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
			t.Errorf("file %d: %s, then %s, differ", i, a[i].Name, b[i].Name)
		}
	}
}

// TestGenerate_RemovesStaleFiles: Generate removes the Go files an earlier
// run wrote (they start with the header) and the defs folder, and keeps
// every other file.
func TestGenerate_RemovesStaleFiles(t *testing.T) {
	out := t.TempDir()
	dir := filepath.Join(out, "example")
	write := func(name, data string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("old.go", salgen.Header+" from ts_xml 1.0; DO NOT EDIT.\n\npackage example\n")
	write("defs/sal_interfaces/Old/Old_Events.xml", "<x/>")
	write("mine.go", "// Mine, not generated.\npackage example\n")
	write("mine_test.go", "package example_test\n")
	write("notes.txt", "keep")
	write("sub/x.go", salgen.Header+"\n")
	if err := salgen.Generate(salxml.Embedded(), "Example", out, salgen.Options{}); err != nil {
		t.Fatal(err)
	}
	for name, exists := range map[string]bool{
		"old.go": false, "defs/sal_interfaces/Old": false, "mine.go": true, "mine_test.go": true, "notes.txt": true,
		"sub/x.go": true, "telemetry.go": true, "defs/sal_interfaces/Example/Example_Events.xml": true,
	} {
		_, err := os.Stat(filepath.Join(dir, name))
		if (err == nil) != exists {
			t.Errorf("%s: exists %t, want %t", name, err == nil, exists)
		}
	}
}

// TestGenerate_Errors: an unknown component's error lists the close
// names; an output folder that cannot be written is an error naming it.
func TestGenerate_Errors(t *testing.T) {
	err := salgen.Generate(salxml.Embedded(), "Exampel", t.TempDir(), salgen.Options{})
	if err == nil || !strings.Contains(err.Error(), "did you mean Example?") {
		t.Errorf("unknown component: %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err = salgen.Generate(salxml.Embedded(), "Example", file, salgen.Options{})
	if err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("output folder under a file: %v", err)
	}
}

// TestFiles_Version: Options.Version replaces the definitions' version.
func TestFiles_Version(t *testing.T) {
	files, err := salgen.Files(salxml.Embedded(), "Example", salgen.Options{Version: "99.1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Name == "component.go" && !bytes.Contains(f.Data, []byte(`const XMLVersion = "99.1"`)) {
			t.Errorf("component.go does not set XMLVersion to 99.1")
		}
		if strings.HasSuffix(f.Name, ".go") && !bytes.HasPrefix(f.Data, []byte(salgen.Header+" from ts_xml 99.1; DO NOT EDIT.\n")) {
			t.Errorf("%s does not start with the header", f.Name)
		}
	}
}
