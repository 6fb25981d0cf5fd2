package xml_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	salxml "github.com/lsst-sal/salgo/xml"
)

// tsXMLDir returns the real ts_xml folder, or skips with the reason.
func tsXMLDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("TS_XML_DIR")
	if dir == "" {
		// The shared checkout beside the project, when present.
		cand := filepath.Join("..", "..", "shared", "ts_xml")
		if _, err := os.Stat(cand); err == nil {
			return cand
		}
		t.Skip("TS_XML_DIR is not set and ../shared/ts_xml is absent: the real ts_xml corpus is not available")
	}
	return dir
}

func TestRealCorpus_LoadsAll(t *testing.T) {
	d, err := salxml.Open(tsXMLDir(t))
	if err != nil {
		t.Fatal(err)
	}
	comps, err := d.All()
	if err != nil {
		t.Fatal(err)
	}
	if len(comps) != 63 {
		t.Errorf("components: got %d, want 63", len(comps))
	}
	n := 0
	for _, c := range comps {
		n += len(c.Topics)
	}
	if n != 3348 {
		t.Errorf("topics: got %d, want 3348", n)
	}
}

func TestRealCorpus_RevCodes(t *testing.T) {
	d, err := salxml.Open(tsXMLDir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ comp, topic, want string }{
		{"Test", "logevent_heartbeat", "9690f77a"},
		{"Test", "ackcmd", "3a49d1f3"},
		{"MTMount", "logevent_heartbeat", "2a6588d3"},
	} {
		c, err := d.Component(tc.comp)
		if err != nil {
			t.Fatal(err)
		}
		tp := c.Topic(tc.topic)
		if tp == nil {
			t.Fatalf("%s has no %s", tc.comp, tc.topic)
		}
		if got := tp.RevCode(); got != tc.want {
			t.Errorf("%s.%s revCode %s, want %s\n%s", tc.comp, tc.topic, got, tc.want, tp.AvroSchema())
		}
	}
}

// TestRealCorpus_GenericEnumerations: every component carries
// SALGenerics.xml's SummaryStates, numbered 1…5 in its order, beside its
// own enumerations (MTM1M3 has a SummaryStates of its own too).
func TestRealCorpus_GenericEnumerations(t *testing.T) {
	d, err := salxml.Open(tsXMLDir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"MTMount", "MTM1M3", "Test"} {
		c, err := d.Component(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.GenericEnumerations) != 1 || c.GenericEnumerations[0].Class != "SummaryStates" {
			t.Fatalf("%s: generic enumerations %v, want SummaryStates alone", name, c.GenericEnumerations)
		}
		var got []string
		for _, e := range c.GenericEnumerations[0].Entries {
			got = append(got, fmt.Sprintf("%s=%d", e.Name, e.Value))
		}
		if want := "SummaryStates_DisabledState=1 SummaryStates_EnabledState=2 SummaryStates_FaultState=3 SummaryStates_OfflineState=4 SummaryStates_StandbyState=5"; strings.Join(got, " ") != want {
			t.Errorf("%s: %s, want %s", name, strings.Join(got, " "), want)
		}
		own := false
		for _, e := range c.Enumerations {
			own = own || e.Class == "SummaryStates"
		}
		if own != (name == "MTM1M3") {
			t.Errorf("%s: a SummaryStates of its own: %v", name, own)
		}
	}
}
