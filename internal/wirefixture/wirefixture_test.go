package wirefixture_test

import (
	"testing"

	"github.com/lsst-sal/salgo/internal/wirefixture"
)

// TestFixture_Counts checks that the reader sees the whole fixture as its
// README describes it: 85 records on 22 topics, 24 subjects, and every
// decoded record starting with the private fields.
func TestFixture_Counts(t *testing.T) {
	recs := wirefixture.Records(t)
	if len(recs) != 85 {
		t.Errorf("records: %d, want 85", len(recs))
	}
	topics := map[string]int{}
	for _, r := range recs {
		topics[r.SALName()]++
		if len(r.Decoded) < 9 || r.Decoded[0].Name != "salIndex" || r.Decoded[8].Name != "private_origin" {
			t.Errorf("line %d: decoded fields do not start with salIndex ... private_origin: %v", r.Line, r.Decoded)
		}
	}
	if len(topics) != 22 || topics["logevent_heartbeat"] != 18 || topics["ackcmd"] != 17 {
		t.Errorf("records per topic: %v", topics)
	}
	if n := len(wirefixture.Schemas(t)); n != 24 {
		t.Errorf("schemas.jsonl: %d lines, want 24", n)
	}
	posted := wirefixture.PostedSchemas(t)
	if len(posted) != 24 {
		t.Errorf("schemas_posted.jsonl: %d lines, want 24", len(posted))
	}
	if got := wirefixture.SubjectSALName("lsst.capture.Test.ackcmd-value"); got != "ackcmd" {
		t.Errorf("SubjectSALName: %q", got)
	}
}
