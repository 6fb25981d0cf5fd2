package sal_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// schemaID registers (idempotently) a topic's schema and returns its id.
func schemaID(t *testing.T, b *sal.Bus, tp *salxml.Topic) int32 {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"schema": tp.AvroSchema()})
	resp, err := http.Post(b.Config().RegistryURL+"/subjects/"+tp.Subject(b.Config().Subname)+"/versions", "application/vnd.schemaregistry.v1+json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ ID int32 }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.ID == 0 {
		t.Fatalf("register: %v %d", err, out.ID)
	}
	return out.ID
}

// rawCommand produces a command record the SDK would refuse to send.
func rawCommand(t *testing.T, b *sal.Bus, cl *kgo.Client, tp *salxml.Topic, rec map[string]any) {
	t.Helper()
	c, err := codec.New(tp)
	if err != nil {
		t.Fatal(err)
	}
	full := validate.For(tp).New()
	for k, v := range rec {
		full[k] = v
	}
	val, err := c.Append(codec.AppendHeader(nil, schemaID(t, b, tp)), full)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctxT(t), &kgo.Record{Topic: tp.KafkaName(b.Config().Subname), Key: []byte(tp.Key(1)), Value: val}).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// TestController_BadCommands: commands with seqNum 0 or negative (which
// kill the reference's controller) and commands with arrays of the wrong
// length are handled without stopping the controller.
func TestController_BadCommands(t *testing.T) {
	b := newBus(t)
	csc := startCSC(t, b, 1)
	r := newRemote(t, b, 1)
	enable(t, r)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Config().Brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	comp := r.Component()
	identity := "raw@test"
	// Watch the ackcmd topic from before the bad commands are sent.
	in, err := b.NewInstance(comp, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	ackR, err := in.Reader(comp.Ack(), topics.ReaderOptions{QueueLen: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	for _, seq := range []int32{0, -5} {
		rawCommand(t, b, cl, comp.Command("setScalars"), map[string]any{"private_seqNum": seq, "salIndex": int32(1), "private_identity": identity, "private_origin": int32(1)})
	}
	// An array of the wrong length: answered CMD_FAILED.
	arrays := comp.Command("setArrays")
	rec := validate.For(arrays).New()
	rec["int0"] = []int32{1, 2, 3}
	rec["private_seqNum"], rec["salIndex"], rec["private_identity"], rec["private_origin"] = int32(77), int32(1), identity, int32(1)
	rawCommand(t, b, cl, arrays, rec)

	// The controller is still alive and answering.
	if _, err := r.Command(ctxT(t), "setScalars", nil, remote.Timeout(10*time.Second)); err != nil {
		t.Fatalf("after bad commands: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for csc.Stats().Rejected < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if s := csc.Stats(); s.Rejected != 3 {
		t.Errorf("rejected %d commands, want 3 (%+v)", s.Rejected, s)
	}
	// The wrong-length array got a FAILED ack naming the field; the
	// seqNum <= 0 commands got none (no sender could match one).
	for {
		rec, err := ackR.Next(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		a := topics.AckFromRecord(rec)
		if a.SeqNum <= 0 {
			t.Errorf("ack for seqNum %d", a.SeqNum)
		}
		if a.SeqNum == 77 {
			if a.Code != sal.CmdFailed || a.Identity != identity || !strings.Contains(a.Result, "int0") {
				t.Errorf("ack for the bad array: %v", a)
			}
			break
		}
	}
}
