package topics_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// exampleFS is the embedded example definitions as a MapFS, with edit
// applied to each file's text (file name relative to the root).
func exampleFS(t *testing.T, edit func(name, text string) string) fstest.MapFS {
	t.Helper()
	root := filepath.Join("..", "xml", "example")
	fsys := fstest.MapFS{}
	err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".xml") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		fsys[rel] = &fstest.MapFile{Data: []byte(edit(rel, string(b)))}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fsys
}

// exampleComp parses the Example component out of fsys.
func exampleComp(t *testing.T, fsys fstest.MapFS, version string) *salxml.Component {
	t.Helper()
	defs, err := salxml.OpenFS(fsys, nil, salxml.WithVersion(version))
	if err != nil {
		t.Fatal(err)
	}
	c, err := defs.Component("Example")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// changedScalars changes the description of Example's scalars telemetry,
// and so its schema and revCode.
func changedScalars(name, text string) string {
	if name != "Example/Example_Telemetry.xml" {
		return text
	}
	return strings.Replace(text, "Scalar values, published periodically", "Scalar values, sent periodically", 1)
}

// TestUseComponent_SameAsDomains: a built-in definition equal to the
// Domain's own is accepted, and the Domain's is used.
func TestUseComponent_SameAsDomains(t *testing.T) {
	d := newDomain(t, nil)
	mine := exampleComp(t, exampleFS(t, func(_, s string) string { return s }), "x")
	got, err := d.UseComponent(mine, "x")
	if err != nil {
		t.Fatal(err)
	}
	if got != example(t, d) {
		t.Error("UseComponent did not return the Domain's own definition")
	}
}

// TestUseComponent_DiffersFromDomains: a built-in definition whose topic
// differs from the Domain's is an error naming the topic and both ts_xml
// releases.
func TestUseComponent_DiffersFromDomains(t *testing.T) {
	d := newDomain(t, nil)
	mine := exampleComp(t, exampleFS(t, changedScalars), "27.0.0")
	_, err := d.UseComponent(mine, "27.0.0")
	if !errors.Is(err, topics.ErrRecordType) {
		t.Fatalf("err = %v, want ErrRecordType", err)
	}
	for _, want := range []string{"Example.scalars", "ts_xml 27.0.0", "ts_xml " + salxml.EmbeddedVersion, "revCode " + mine.Topic("scalars").RevCode()} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

// withoutExample is the example definitions with Example renamed in
// SALSubsystems.xml, so that the Domain lacks it.
func withoutExample(t *testing.T) *salxml.Definitions {
	t.Helper()
	fsys := exampleFS(t, func(name, s string) string {
		if name == "SALSubsystems.xml" {
			return strings.Replace(s, "<Name>Example</Name>", "<Name>Other</Name>", 1)
		}
		return s
	})
	defs, err := salxml.OpenFS(fsys, nil, salxml.WithVersion("28.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

// TestUseComponent_BuiltInOnly: a component the Domain's definitions lack
// is taken from the program, and a second, different definition of it is
// refused.
func TestUseComponent_BuiltInOnly(t *testing.T) {
	d := newDomain(t, withoutExample(t))
	if _, err := d.Component("Example"); err == nil {
		t.Fatal("the Domain knows Example before UseComponent")
	}
	mine := exampleComp(t, exampleFS(t, func(_, s string) string { return s }), "v1")
	if got, err := d.UseComponent(mine, "v1"); err != nil || got != mine {
		t.Fatalf("UseComponent = %p, %v; want %p", got, err, mine)
	}
	if got, err := d.Component("Example"); err != nil || got != mine {
		t.Fatalf("Component(Example) = %p, %v after UseComponent", got, err)
	}
	other := exampleComp(t, exampleFS(t, changedScalars), "v2")
	_, err := d.UseComponent(other, "v2")
	if !errors.Is(err, topics.ErrRecordType) || !strings.Contains(err.Error(), "ts_xml v2") || !strings.Contains(err.Error(), "ts_xml v1") {
		t.Fatalf("second UseComponent: %v", err)
	}
}

// TestUseComponent_RegistryHoldsOther: a built-in component whose schema
// differs from the newest one the registry holds under the topic's
// subject fails at Start, naming the topic, the subject and the bus's
// ts_xml release once an instance has reported it in softwareVersions
// (that none has, before).
func TestUseComponent_RegistryHoldsOther(t *testing.T) {
	cfg := testConfig(t, salxml.Embedded())
	ctx := ctxT(t)
	// Another program, on ts_xml's own definitions, registered its
	// (changed) scalars first.
	first, err := topics.NewDomain(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	theirs := exampleComp(t, exampleFS(t, changedScalars), "29.0.0")
	in, err := first.NewInstance(theirs, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Writer(theirs.Telemetry("scalars")); err != nil {
		t.Fatal(err)
	}
	versions, err := in.Writer(theirs.Event("softwareVersions"))
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// This program carries the unchanged Example, its Domain lacks it.
	cfg.Definitions = withoutExample(t)
	d, err := topics.NewDomain(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	mine, err := d.UseComponent(exampleComp(t, exampleFS(t, func(_, s string) string { return s }), "28.0.1"), "28.0.1")
	if err != nil {
		t.Fatal(err)
	}
	err = startWriting(t, d, mine, 1, mine.Telemetry("scalars"))
	if !errors.Is(err, topics.ErrRecordType) {
		t.Fatalf("Start: %v, want ErrRecordType", err)
	}
	for _, want := range []string{"Example.scalars", "ts_xml 28.0.1", mine.Telemetry("scalars").Subject(cfg.Subname), "version 1",
		"no instance of the component has reported the bus's ts_xml release in softwareVersions"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	// Once the other program has said which release it runs, the error
	// names it.
	if _, err := versions.Write(ctx, map[string]any{"xmlVersion": "29.0.0", "salVersion": "", "cscVersion": "1.0", "subsystemVersions": ""}); err != nil {
		t.Fatal(err)
	}
	err = startWriting(t, d, mine, 3, mine.Telemetry("scalars"))
	if want := "the bus runs ts_xml 29.0.0 (the xmlVersion Example:1 last reported in softwareVersions)"; !errors.Is(err, topics.ErrRecordType) || !strings.Contains(err.Error(), want) {
		t.Errorf("Start after softwareVersions: %v; want ErrRecordType naming %q", err, want)
	}
	// A topic the registry holds with the same schema starts.
	if err := startWriting(t, d, mine, 2, mine.Event("scalars")); err != nil {
		t.Fatalf("Start of a topic the registry does not hold yet: %v", err)
	}
}

// startWriting starts an instance of comp at index with a writer of tp
// and returns Start's error.
func startWriting(t *testing.T, d *topics.Domain, comp *salxml.Component, index int, tp *salxml.Topic) error {
	t.Helper()
	in, err := d.NewInstance(comp, index, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Writer(tp); err != nil {
		t.Fatal(err)
	}
	return in.Start(ctxT(t))
}
