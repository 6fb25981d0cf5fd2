package sal_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/sal"
	salxml "github.com/lsst-sal/salgo/xml"
)

// editedExample writes the embedded Example definitions to a folder,
// applies edit to the named file, and opens the result.
func editedExample(t *testing.T, file, old, new string, extra map[string]string) *salxml.Definitions {
	t.Helper()
	dir := t.TempDir()
	sal := filepath.Join(dir, "sal_interfaces")
	src := os.DirFS(filepath.Join("..", "xml", "example"))
	err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		if p == file {
			if !strings.Contains(string(b), old) {
				t.Fatalf("%s does not contain %q", file, old)
			}
			b = []byte(strings.Replace(string(b), old, new, 1))
		}
		if err := os.MkdirAll(filepath.Join(sal, filepath.Dir(p)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(sal, p), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, text := range extra {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := salxml.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

const avscV1 = `{"type": "record", "name": "probe", "namespace": "lsst.sal.Example", "fields": [
 {"name": "a", "type": ["null", "double"], "default": null, "description": "a", "units": "V"},
 {"name": "tag", "type": "string", "description": "no default"}]}`

const avscV2 = `{"type": "record", "name": "probe", "namespace": "lsst.sal.Example", "fields": [
 {"name": "a", "type": ["null", "double"], "default": null, "description": "a", "units": "V"}]}`

func findCheck(cs []sal.SchemaCheck, topic string) *sal.SchemaCheck {
	for i := range cs {
		if cs[i].Topic == topic {
			return &cs[i]
		}
	}
	return nil
}

func TestCheckSchemas_Hazards(t *testing.T) {
	b := newBus(t)
	// Register what the current definitions produce, the .avsc topic included.
	v1 := editedExample(t, "Example/Example_Events.xml", "", "", map[string]string{"interfaces/Example/probe.avsc": avscV1})
	ctx := ctxT(t)
	for _, defs := range []*salxml.Definitions{v1} {
		comp, _ := defs.Component("Example")
		in, err := b.NewInstance(comp, 1, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, tp := range comp.Topics {
			if _, err := in.Writer(tp); err != nil {
				t.Fatal(err)
			}
		}
		if err := in.Start(ctx); err != nil {
			t.Fatal(err)
		}
		in.Close()
	}
	cfg := b.Config()
	check := func(defs *salxml.Definitions) []sal.SchemaCheck {
		t.Helper()
		cs, err := sal.CheckSchemasAt(ctx, cfg.RegistryURL, cfg.Subname, defs, "Example")
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	for _, c := range check(v1) {
		if c.Status != sal.SchemaIdentical {
			t.Errorf("unchanged %s: %s %s", c.Topic, c.Status, c.Reason)
		}
	}
	cases := []struct {
		name  string
		defs  *salxml.Definitions
		topic string
		want  sal.SchemaStatus
		why   string
	}{
		{"type changed", editedExample(t, "Example/Example_Telemetry.xml", "are invalid.</Description>\n      <IDL_Type>int</IDL_Type>", "are invalid.</Description>\n      <IDL_Type>string</IDL_Type>", map[string]string{"interfaces/Example/probe.avsc": avscV1}), "status", sal.SchemaIncompatible, "mode"},
		{"array length changed", editedExample(t, "Example/Example_Telemetry.xml", "<Count>8</Count>", "<Count>9</Count>", map[string]string{"interfaces/Example/probe.avsc": avscV1}), "status", sal.SchemaIncompatible, "changed length from 8 to 9"},
		{"field removed without default", editedExample(t, "Example/Example_Events.xml", "", "", map[string]string{"interfaces/Example/probe.avsc": avscV2}), "probe", sal.SchemaBackward, "tag"},
	}
	for _, tc := range cases {
		cs := check(tc.defs)
		c := findCheck(cs, tc.topic)
		if c == nil || c.Status != tc.want || !strings.Contains(c.Reason, tc.why) {
			t.Errorf("%s: %+v", tc.name, c)
		}
	}
	// A topic renamed: commandsReceived becomes commandsSeen.
	ren := editedExample(t, "Example/Example_Events.xml", "Example_logevent_commandsReceived", "Example_logevent_commandsSeen", map[string]string{"interfaces/Example/probe.avsc": avscV1})
	cs := check(ren)
	if c := findCheck(cs, "logevent_commandsSeen"); c == nil || c.Status != sal.SchemaNew {
		t.Errorf("renamed topic: %+v", c)
	}
	orphan := false
	for _, c := range cs {
		if c.Status == sal.SchemaOrphan && strings.HasSuffix(c.Subject, ".logevent_commandsReceived-value") {
			orphan = true
		}
	}
	if !orphan {
		t.Error("the old name of a renamed topic is not reported as an orphan")
	}
}
