package embedded

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

func avro(name string) sr.Schema {
	return sr.Schema{Schema: `{"type":"record","name":"` + name + `","fields":[{"name":"a","type":"int"}]}`}
}

// TestFastRegistry: registrations answered from the front's maps are
// seen by every read route of srfake, ids and versions as a registry
// numbers them, also after srfake took a subject over (the same text
// registered under a second subject).
func TestFastRegistry(t *testing.T) {
	reg := srfake.NewRegistry(srfake.WithGlobalCompat(sr.CompatNone))
	defer reg.Close()
	front := newFastRegistry(reg)
	srv := httptest.NewServer(front)
	defer srv.Close()
	cl, err := sr.NewClient(sr.URLs(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	register := func(subject string, s sr.Schema) sr.SubjectSchema {
		t.Helper()
		ss, err := cl.CreateSchema(ctx, subject, s)
		if err != nil {
			t.Fatalf("register %s: %v", subject, err)
		}
		return ss
	}
	a1 := register("a", avro("A1"))
	a1again := register("a", avro("A1"))
	a2 := register("a", avro("A2"))
	b1 := register("b", avro("B1"))
	if a1.ID != 1 || a1again.ID != 1 || a2.ID != 2 || b1.ID != 3 {
		t.Errorf("ids %d %d %d %d, want 1 1 2 3", a1.ID, a1again.ID, a2.ID, b1.ID)
	}
	// Read routes: by id, by subject and version, the subject list.
	for id, name := range map[int]string{1: "A1", 2: "A2", 3: "B1"} {
		s, err := cl.SchemaByID(ctx, id)
		if err != nil || s.Schema != avro(name).Schema {
			t.Errorf("schema %d: %q, %v; want %s", id, s.Schema, err, name)
		}
	}
	if ss, err := cl.SchemaByVersion(ctx, "a", 2); err != nil || ss.ID != 2 {
		t.Errorf("a version 2: %+v, %v", ss, err)
	}
	if subs, err := cl.Subjects(ctx); err != nil || len(subs) != 2 {
		t.Errorf("subjects %v, %v", subs, err)
	}
	// The same text under another subject: srfake gives the known id, and
	// numbers that subject's versions from then on.
	if c1 := register("c", avro("A1")); c1.ID != 1 {
		t.Errorf("A1 under c: id %d, want 1", c1.ID)
	}
	c2 := register("c", avro("C2"))
	if ss, err := cl.SchemaByVersion(ctx, "c", 2); err != nil || ss.ID != c2.ID || c2.ID != 4 {
		t.Errorf("c version 2: %+v, %v; registered as id %d, want 4", ss, err, c2.ID)
	}
	// A new schema after srfake registered one: its id is above srfake's.
	if d1 := register("d", avro("D1")); d1.ID != 5 {
		t.Errorf("D1: id %d, want 5", d1.ID)
	}
	if ss, err := cl.SchemaByVersion(ctx, "d", 1); err != nil || ss.ID != 5 {
		t.Errorf("d version 1: %+v, %v", ss, err)
	}
}
