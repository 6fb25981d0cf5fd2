package embedded

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"
)

// TestDataDir_RegistryKept: the schemas registered before a restart with
// the same data folder keep their ids and versions, whichever route
// registered them (the fast front, srfake for a text under a second
// subject), and registrations after the restart go on from them.
func TestDataDir_RegistryKept(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	start := func() (*Cluster, *sr.Client) {
		t.Helper()
		c, err := Start(Options{DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		cl, err := sr.NewClient(sr.URLs(c.RegistryURL()))
		if err != nil {
			c.Close()
			t.Fatal(err)
		}
		return c, cl
	}
	register := func(cl *sr.Client, subject string, s sr.Schema) sr.SubjectSchema {
		t.Helper()
		ss, err := cl.CreateSchema(ctx, subject, s)
		if err != nil {
			t.Fatalf("register %s: %v", subject, err)
		}
		return ss
	}
	c, cl := start()
	a1, a2, b1 := register(cl, "a", avro("A1")), register(cl, "a", avro("A2")), register(cl, "b", avro("B1"))
	c1 := register(cl, "c", avro("A1")) // srfake: the id of a1
	c2 := register(cl, "c", avro("C2"))
	c.Close()

	c, cl = start()
	defer c.Close()
	for _, want := range []sr.SubjectSchema{a1, a2, b1, c1, c2} {
		got, err := cl.SchemaByVersion(ctx, want.Subject, want.Version)
		if err != nil || got.ID != want.ID || got.Schema.Schema != want.Schema.Schema {
			t.Errorf("after the restart, %s version %d: id %d %q, %v; want id %d %q",
				want.Subject, want.Version, got.ID, got.Schema.Schema, err, want.ID, want.Schema.Schema)
		}
		if again := register(cl, want.Subject, want.Schema); again.ID != want.ID {
			t.Errorf("%s registered again: id %d, want %d", want.Subject, again.ID, want.ID)
		}
	}
	if d1 := register(cl, "d", avro("D1")); d1.ID != c2.ID+1 {
		t.Errorf("a new schema after the restart: id %d, want %d", d1.ID, c2.ID+1)
	}
	if a3 := register(cl, "a", avro("A3")); a3.Version != 3 {
		t.Errorf("a new version of a after the restart: %d, want 3", a3.Version)
	}
	if c3 := register(cl, "c", avro("C3")); c3.Version != 3 {
		t.Errorf("a new version of c after the restart: %d, want 3", c3.Version)
	}
}

// TestDataDir_RegistryFileDamaged: a damaged registry file is an error
// naming the file and its line; a last line cut short (a crash while it
// was written, so never answered) is dropped.
func TestDataDir_RegistryFileDamaged(t *testing.T) {
	good := `{"subject":"a","version":1,"id":1,"schema":{"schema":"{\"type\":\"record\",\"name\":\"A1\",\"fields\":[]}"}}` + "\n"
	for _, tc := range []struct{ name, file, want string }{
		{"not json", good + "{nope\n", "line 2: invalid character"},
		{"no id", `{"subject":"a","version":1,"schema":{"schema":"x"}}` + "\n", "line 1: want a subject, a version and an id from 1"},
		{"twice", good + good, `line 2: subject "a" version 1 a second time`},
		{"unknown field", `{"subject":"a","version":1,"id":1,"idd":2,"schema":{"schema":"x"}}` + "\n", `line 1: json: unknown field "idd"`},
		{"id taken", good + strings.NewReplacer(`A1`, `B1`, `"a"`, `"b"`).Replace(good), `line 2: subject "b" version 1 id 1 registers as version 1 id 2`},
		{"bad schema", `{"subject":"a","version":1,"id":1,"schema":{"schema":"{not avro"}}` + "\n", "line 1: invalid schema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, RegistryFile)
			if err := os.WriteFile(path, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := Start(Options{DataDir: dir})
			if err == nil {
				c.Close()
				t.Fatalf("started on a damaged registry file, want an error")
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to name %s and say %q", err, path, tc.want)
			}
		})
	}
	t.Run("cut short", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, RegistryFile)
		if err := os.WriteFile(path, []byte(good+good[:40]), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Start(Options{DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		cl, err := sr.NewClient(sr.URLs(c.RegistryURL()))
		if err != nil {
			c.Close()
			t.Fatal(err)
		}
		if ss, err := cl.CreateSchema(context.Background(), "b", avro("B1")); err != nil || ss.ID != 2 {
			t.Errorf("register after a cut-short line: %+v, %v; want id 2", ss, err)
		}
		c.Close()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"); len(lines) != 2 || lines[0]+"\n" != good ||
			!strings.Contains(lines[1], `"subject":"b"`) {
			t.Errorf("registry file after the cut-short line:\n%s\nwant the whole line and b's", data)
		}
	})
}

// TestDataDir_OneAtATime: a second cluster on a data folder in use is
// refused with ErrDataDirInUse naming the folder; the folder is free
// again once the first is closed.
func TestDataDir_OneAtATime(t *testing.T) {
	dir := t.TempDir()
	c, err := Start(Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if c2, err := Start(Options{DataDir: dir}); !errors.Is(err, ErrDataDirInUse) || !strings.Contains(err.Error(), dir) {
		if c2 != nil {
			c2.Close()
		}
		t.Errorf("a second cluster on %s: %v, want ErrDataDirInUse naming the folder", dir, err)
	}
	c.Close()
	c, err = Start(Options{DataDir: dir})
	if err != nil {
		t.Fatalf("the folder after the first cluster closed: %v", err)
	}
	c.Close()
}
