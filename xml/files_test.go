package xml_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	salxml "github.com/lsst-sal/salgo/xml"
)

func TestEmbeddedFiles(t *testing.T) {
	sal, avsc := salxml.Embedded().Files()
	if avsc != nil {
		t.Errorf("embedded avsc file system %v, want nil", avsc)
	}
	for _, name := range []string{"SALSubsystems.xml", "SALGenerics.xml", "Example/Example_Commands.xml"} {
		b, err := fs.ReadFile(sal, name)
		if err != nil || !bytes.Contains(b, []byte("<")) {
			t.Errorf("embedded %s: %d bytes, %v", name, len(b), err)
		}
	}
}

// TestOpenFiles: Files of Open reads the files of the folder, and of the
// interfaces folder beside it when there is one.
func TestOpenFiles(t *testing.T) {
	root := t.TempDir()
	salDir := filepath.Join(root, "sal_interfaces")
	embedded, _ := salxml.Embedded().Files()
	if err := os.CopyFS(salDir, embedded); err != nil {
		t.Fatal(err)
	}
	d, err := salxml.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	sal, avsc := d.Files()
	if avsc != nil {
		t.Errorf("avsc file system %v without an interfaces folder, want nil", avsc)
	}
	n := 0
	err = filepath.WalkDir(salDir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(salDir, p)
		want, _ := os.ReadFile(p)
		got, err := fs.ReadFile(sal, filepath.ToSlash(rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, %v; want the folder's %d bytes", rel, len(got), err, len(want))
		}
		n++
		return nil
	})
	if err != nil || n < 3 {
		t.Fatalf("walked %d files: %v", n, err)
	}

	av := filepath.Join(root, "interfaces", "Example")
	if err := os.MkdirAll(av, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(av, "x.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err = salxml.Open(root); err != nil {
		t.Fatal(err)
	}
	if _, avsc = d.Files(); avsc == nil {
		t.Fatal("no avsc file system beside an interfaces folder")
	}
	if b, err := fs.ReadFile(avsc, "Example/x.txt"); err != nil || string(b) != "x" {
		t.Errorf("interfaces/Example/x.txt: %q, %v", b, err)
	}

	d, err = salxml.OpenFS(embedded, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s, a := d.Files(); s == nil || a != nil {
		t.Errorf("OpenFS: Files() = %v, %v", s, a)
	}
}
