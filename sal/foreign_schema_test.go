package sal_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// registerForeign registers schema text under subject, as another writer
// would, and returns its id.
func registerForeign(t *testing.T, b *sal.Bus, subject, schema string) int32 {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"schema": schema})
	req, err := http.NewRequest(http.MethodPost, b.Config().RegistryURL+"/subjects/"+url.PathEscape(subject)+"/versions", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	req.Close = true // no connection kept alive after the test (goleak)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	var out struct{ ID int32 }
	if err := json.Unmarshal(text, &out); err != nil || out.ID == 0 {
		t.Fatalf("register under %s: %s: %s", subject, resp.Status, text)
	}
	return out.ID
}

// retyped is tp with field name changed to type typ: another writer's
// incompatible version of the topic.
func retyped(tp *salxml.Topic, name string, typ salxml.Type) *salxml.Topic {
	fields := make([]*salxml.Field, len(tp.Fields))
	for i, f := range tp.Fields {
		c := *f
		if c.Name == name {
			c.Type = typ
		}
		fields[i] = &c
	}
	return &salxml.Topic{Component: tp.Component, SALName: tp.SALName, Kind: tp.Kind,
		Indexed: tp.Indexed, Namespace: tp.Namespace, Fields: fields}
}

// foreignRecord is a complete record of tp (private fields as a peer
// writes them) framed with schema id.
func foreignRecord(t *testing.T, tp *salxml.Topic, id int32, seq int32, fields map[string]any) []byte {
	t.Helper()
	rec := validate.Compile(tp).New()
	for k, v := range fields {
		rec[k] = v
	}
	rec["private_seqNum"], rec["salIndex"], rec["private_identity"], rec["private_origin"] = seq, int32(1), "foreign@elsewhere", int32(3)
	rec["private_revCode"] = tp.RevCode()
	c, err := codec.New(tp)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.Append(codec.AppendHeader(nil, id), rec)
	if err != nil {
		t.Fatalf("encode %s: %v", tp, err)
	}
	return v
}

// TestForeignSchemas_RolesKeepWorking: records framed with incompatible
// schemas another writer registered, and plain garbage, land on the
// command topic a Controller reads and on the ackcmd and event topics a
// Remote reads. Each reader skips and counts them; commands, acks and
// events that follow go through.
func TestForeignSchemas_RolesKeepWorking(t *testing.T) {
	b := newBus(t)
	startCSC(t, b, 1)
	r := newRemote(t, b, 1)
	enable(t, r)
	// The Remote reads acks with a consumer of its own, so its event
	// reader may still be behind: let it reach ENABLED, or the DISABLED
	// of the way there would pass for the one awaited below.
	waitState(t, r, sal.Enabled)
	comp := r.Component()
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Config().Brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	sub := b.Config().Subname
	garbage := []byte{0, 0x7f, 0xff, 0xff, 0xff, 0x01, 0x02}

	cmd := comp.Command("setScalars")
	badCmd := retyped(cmd, "double0", salxml.String)
	ack := comp.Ack()
	badAck := retyped(ack, "ack", salxml.String)
	ev := comp.Event("summaryState")
	badEv := retyped(ev, "summaryState", salxml.Double)
	idCmd := registerForeign(t, b, sub+"-foreign-cmd-value", badCmd.AvroSchema())
	idAck := registerForeign(t, b, sub+"-foreign-ack-value", badAck.AvroSchema())
	idEv := registerForeign(t, b, sub+"-foreign-ev-value", badEv.AvroSchema())

	var recs []*kgo.Record
	add := func(tp *salxml.Topic, values ...[]byte) {
		for _, v := range values {
			recs = append(recs, &kgo.Record{Topic: tp.KafkaName(sub), Key: []byte(tp.Key(1)), Value: v})
		}
	}
	add(cmd, foreignRecord(t, badCmd, idCmd, 1000, map[string]any{"double0": "one"}), garbage)
	add(ack, foreignRecord(t, badAck, idAck, 1000, map[string]any{"ack": "COMPLETE"}), garbage)
	add(ev, foreignRecord(t, badEv, idEv, 1000, map[string]any{"summaryState": 2.0}), garbage)
	if err := cl.ProduceSync(ctxT(t), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}

	// The controller executes, the remote gets the acks and the event.
	if _, err := r.Command(ctxT(t), "setScalars", map[string]any{"double0": 1.5}); err != nil {
		t.Fatalf("setScalars after the foreign records: %v", err)
	}
	if _, err := r.Command(ctxT(t), "disable", nil); err != nil {
		t.Fatalf("disable after the foreign records: %v", err)
	}
	waitState(t, r, sal.Disabled)
	// Each reader met its two foreign records before what followed them
	// on its topic: the setScalars command (the controller), its acks (the
	// remote) and the DISABLED state (the remote).
	for _, c := range []struct {
		what  string
		stats topics.ReaderStats
	}{
		{"controller's setScalars reader", readerStats(b, "Example", 1, "command_setScalars")},
		{"remote's ackcmd reader", remoteAckStats(b, r)},
		{"remote's summaryState reader", r.MustEvent("summaryState").Stats()},
	} {
		if c.stats.Undecodable != 2 {
			t.Errorf("%s: %d undecodable, want the 2 foreign records (%+v)", c.what, c.stats.Undecodable, c.stats)
		}
	}
}

// remoteAckStats returns the stats of r's ackcmd reader: the only ackcmd
// reader of the component instance on b.
func remoteAckStats(b *sal.Bus, r *sal.Remote) topics.ReaderStats {
	return readerStats(b, r.Component().Name, r.Index(), "ackcmd")
}
