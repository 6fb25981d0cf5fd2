package topics_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// Helpers that act as a foreign peer on the bus: a raw franz-go producer,
// schema registration by plain REST, and records framed by hand. They let
// tests put on the wire what the SDK's own writers never would.

// rawProducer is a plain franz-go client on the Domain's brokers (no
// linger, leader acks). Records with Partition set go to that partition.
func rawProducer(t testing.TB, d *topics.Domain) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(d.Config().Brokers...),
		kgo.ProducerLinger(0),
		kgo.RequiredAcks(kgo.LeaderAck()),
		kgo.DisableIdempotentWrite(),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// produce sends values to topic partition 0, in order, with no key, and
// waits for the acks.
func produce(t testing.TB, cl *kgo.Client, topic string, values ...[]byte) {
	t.Helper()
	recs := make([]*kgo.Record, len(values))
	for i, v := range values {
		recs[i] = &kgo.Record{Topic: topic, Value: v}
	}
	produceRecords(t, cl, recs...)
}

// produceRecords sends recs in order and waits for the acks.
func produceRecords(t testing.TB, cl *kgo.Client, recs ...*kgo.Record) {
	t.Helper()
	if err := cl.ProduceSync(ctxT(t), recs...).FirstErr(); err != nil {
		t.Fatalf("raw produce to %s: %v", recs[0].Topic, err)
	}
}

// keyed is a record of tp as peer p writes it, with the reference's key
// (a compacted event topic on a real broker rejects records without one).
func (p peer) keyed(d *topics.Domain, tp *salxml.Topic, value []byte) *kgo.Record {
	r := &kgo.Record{Topic: kname(d, tp), Value: value}
	if k := tp.Key(int(p.index)); k != "" {
		r.Key = []byte(k)
	}
	return r
}

// setCompatibility sets a subject's compatibility level (PUT /config/{subject}).
func setCompatibility(t testing.TB, registryURL, subject, level string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"compatibility": level})
	req, err := http.NewRequestWithContext(ctxT(t), http.MethodPut,
		strings.TrimSuffix(registryURL, "/")+"/config/"+url.PathEscape(subject), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	req.Close = true // no connection kept alive after the test (goleak)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("set compatibility of %s: %v", subject, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		text, _ := io.ReadAll(resp.Body)
		t.Fatalf("set compatibility of %s: %s: %s", subject, resp.Status, text)
	}
}

// registerSchema registers schema text under subject with POST
// /subjects/{subject}/versions, as ts_salobj does, and returns its id.
func registerSchema(t testing.TB, registryURL, subject, schema string) int32 {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"schema": schema})
	req, err := http.NewRequestWithContext(ctxT(t), http.MethodPost,
		strings.TrimSuffix(registryURL, "/")+"/subjects/"+url.PathEscape(subject)+"/versions", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	req.Close = true // no connection kept alive after the test (goleak)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("register %s: %v", subject, err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("register %s: %s: %s", subject, resp.Status, text)
	}
	var out struct {
		ID int32 `json:"id"`
	}
	if err := json.Unmarshal(text, &out); err != nil || out.ID <= 0 {
		t.Fatalf("register %s: answer %s: %v", subject, text, err)
	}
	return out.ID
}

// schemaID registers tp's schema text (exactly what the SDK registers,
// so the registry answers with the id the SDK uses) and returns the id.
func schemaID(t testing.TB, d *topics.Domain, tp *salxml.Topic) int32 {
	t.Helper()
	return registerSchema(t, d.Config().RegistryURL, tp.Subject(d.Config().Subname), tp.AvroSchema())
}

// peer is a foreign writer: one identity and origin, its own seqNums.
type peer struct {
	identity string
	origin   int32
	index    int32
}

// record makes a complete record of topic tp as peer p would write it:
// user fields at their defaults overridden by fields, the private fields
// filled with seq and the send stamp snd (TAI seconds).
func (p peer) record(t testing.TB, tp *salxml.Topic, fields map[string]any, seq int32, snd float64) map[string]any {
	t.Helper()
	v := validate.Compile(tp)
	rec := v.New()
	for k, x := range fields {
		rec[k] = x
	}
	rec["private_sndStamp"] = snd
	rec["private_kafkaStamp"] = snd
	rec["private_efdStamp"] = snd - 37
	rec["private_rcvStamp"] = 0.0
	rec["private_seqNum"] = seq
	rec["private_revCode"] = tp.RevCode()
	rec["private_identity"] = p.identity
	rec["private_origin"] = p.origin
	if tp.Indexed {
		rec["salIndex"] = p.index
	}
	if err := v.Validate(rec); err != nil {
		t.Fatalf("%s: %v", tp, err)
	}
	return rec
}

// frame encodes rec with tp's own codec behind a Confluent header for id.
func frame(t testing.TB, tp *salxml.Topic, id int32, rec map[string]any) []byte {
	t.Helper()
	c, err := codec.New(tp)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Append(codec.AppendHeader(nil, id), rec)
	if err != nil {
		t.Fatalf("encode %s: %v", tp, err)
	}
	return b
}

// copyTopic returns a fresh topic with tp's identity (component, name,
// kind, namespace) and the fields edit returns, so its AvroSchema renders
// from those fields: another version of tp's schema.
func copyTopic(tp *salxml.Topic, edit func([]*salxml.Field) []*salxml.Field) *salxml.Topic {
	fields := make([]*salxml.Field, 0, len(tp.Fields)+2)
	for _, f := range tp.Fields {
		c := *f
		fields = append(fields, &c)
	}
	return &salxml.Topic{
		Component:   tp.Component,
		SALName:     tp.SALName,
		Kind:        tp.Kind,
		Description: tp.Description,
		Indexed:     tp.Indexed,
		Namespace:   tp.Namespace,
		Fields:      edit(fields),
	}
}

// waitFor polls cond until it holds; ctx's deadline is only a safety net
// that turns a hang into a failure naming what never happened.
func waitFor(t testing.TB, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("never happened: %s", what)
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// next reads one record or fails.
func next(t testing.TB, ctx context.Context, r *topics.Reader) map[string]any {
	t.Helper()
	rec, err := r.Next(ctx)
	if err != nil {
		t.Fatalf("%s: Next: %v (stats %+v)", r.Topic(), err, r.Stats())
	}
	return rec
}

// startInstance makes an instance of comp with one reader per topic in
// readers (with options o) and starts it.
func startInstance(t testing.TB, d *topics.Domain, comp *salxml.Component, index int, o topics.ReaderOptions, readers ...*salxml.Topic) (*topics.Instance, []*topics.Reader) {
	t.Helper()
	in, err := d.NewInstance(comp, index, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.Close)
	rs := make([]*topics.Reader, len(readers))
	for i, tp := range readers {
		if rs[i], err = in.Reader(tp, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	return in, rs
}

// startWriter makes an instance of comp with a writer of tp and starts it.
func startWriter(t testing.TB, d *topics.Domain, comp *salxml.Component, index int, tp *salxml.Topic) (*topics.Instance, *topics.Writer) {
	t.Helper()
	in, ws := startWriters(t, d, comp, index, tp)
	return in, ws[0]
}

// startWriters makes an instance of comp with one writer per topic in tps
// and starts it.
func startWriters(t testing.TB, d *topics.Domain, comp *salxml.Component, index int, tps ...*salxml.Topic) (*topics.Instance, []*topics.Writer) {
	t.Helper()
	in, err := d.NewInstance(comp, index, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.Close)
	ws := make([]*topics.Writer, len(tps))
	for i, tp := range tps {
		if ws[i], err = in.Writer(tp); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	return in, ws
}

func kname(d *topics.Domain, tp *salxml.Topic) string { return tp.KafkaName(d.Config().Subname) }
