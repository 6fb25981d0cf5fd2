// Package testbus gives each test of the module a bus of its own: a
// topics.Domain on the broker and registry named by
// LSST_KAFKA_BROKER_ADDR and LSST_SCHEMA_REGISTRY_URL when they are set,
// else on an in-process broker and registry started for the test; every
// test gets its own topic subname, and everything is closed by
// t.Cleanup. It is for tests only.
package testbus

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/internal/embedded"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

var seq atomic.Int64

// Config returns the configuration of a bus for t (defs nil: the
// embedded Example component), and the in-process cluster it runs on (nil
// on a real broker).
func Config(t testing.TB, defs *salxml.Definitions) (topics.Config, *embedded.Cluster) {
	t.Helper()
	cfg, err := topics.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	var local *embedded.Cluster
	switch {
	case len(cfg.Brokers) == 0:
		local, err = embedded.Start(embedded.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(local.Close)
		cfg.Brokers, cfg.RegistryURL, cfg.Embedded = local.Brokers(), local.RegistryURL(), true
	case cfg.RegistryURL == "":
		// A real broker without a registry: borrow an embedded registry
		// (its broker stays idle).
		c, err := embedded.Start(embedded.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		cfg.RegistryURL = c.RegistryURL()
	}
	if defs == nil {
		defs = salxml.Embedded()
	}
	name := strings.NewReplacer("/", "_", "#", "", " ", "_").Replace(t.Name())
	cfg.Subname = fmt.Sprintf("t%d_%d_%s", os.Getpid(), seq.Add(1), name)
	cfg.Definitions = defs
	cfg.Logger = Logger()
	return cfg, local
}

// Domain connects a Domain for t (see Config); t.Cleanup closes it.
func Domain(t testing.TB, defs *salxml.Definitions) *topics.Domain {
	t.Helper()
	cfg, _ := Config(t, defs)
	return Connect(t, cfg)
}

// Connect connects a Domain with cfg; t.Cleanup closes it.
func Connect(t testing.TB, cfg topics.Config) *topics.Domain {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := topics.NewDomain(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// Logger discards, unless SALGO_TEST_LOG is set: then it logs everything
// to stderr.
func Logger() *slog.Logger {
	if os.Getenv("SALGO_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// Ctx is a context that ends 60 s from now or with the test: a guard
// that turns a hang into a failure, never a timed assertion.
func Ctx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Peer is a writer on the bus that the SDK's own writers would refuse to
// be: it frames any record as given and produces it with a plain Kafka
// client, for tests of what readers do with bad or repeated records.
type Peer struct {
	t        testing.TB
	d        *topics.Domain
	cl       *kgo.Client
	Identity string
	Origin   int32
	Index    int32
}

// NewPeer makes a Peer writing as identity and origin for SAL index
// index; t.Cleanup closes its client.
func NewPeer(t testing.TB, d *topics.Domain, identity string, origin int32, index int32) *Peer {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(d.Config().Brokers...), kgo.ProducerLinger(0),
		kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return &Peer{t: t, d: d, cl: cl, Identity: identity, Origin: origin, Index: index}
}

// Record is a complete record of tp as the peer writes it: every field at
// its default, the private fields filled (seqNum 1, send stamp now), then
// fields laid over it as they are (no validation).
func (p *Peer) Record(tp *salxml.Topic, fields map[string]any) map[string]any {
	rec := validate.For(tp).New()
	snd := topics.TAI()
	rec["private_sndStamp"], rec["private_kafkaStamp"], rec["private_efdStamp"] = snd, snd, topics.TAIToUTC(snd)
	rec["private_rcvStamp"] = 0.0
	rec["private_seqNum"] = int32(1)
	rec["private_revCode"] = tp.RevCode()
	rec["private_identity"] = p.Identity
	rec["private_origin"] = p.Origin
	if tp.Indexed {
		rec["salIndex"] = p.Index
	}
	maps.Copy(rec, fields)
	return rec
}

// Write frames rec with tp's registered schema (registering it if need
// be) and produces it with the reference's key, waiting for the ack.
func (p *Peer) Write(tp *salxml.Topic, rec map[string]any) {
	p.t.Helper()
	c, err := codec.New(tp)
	if err != nil {
		p.t.Fatal(err)
	}
	v, err := c.Append(codec.AppendHeader(nil, p.schemaID(tp)), rec)
	if err != nil {
		p.t.Fatalf("encode %s: %v", tp, err)
	}
	r := &kgo.Record{Topic: tp.KafkaName(p.d.Config().Subname), Value: v}
	if k := tp.Key(int(p.Index)); k != "" {
		r.Key = []byte(k)
	}
	if err := p.cl.ProduceSync(Ctx(p.t), r).FirstErr(); err != nil {
		p.t.Fatalf("produce to %s: %v", r.Topic, err)
	}
}

// schemaID registers tp's schema (idempotent) and returns its id.
func (p *Peer) schemaID(tp *salxml.Topic) int32 {
	p.t.Helper()
	body, _ := json.Marshal(map[string]string{"schema": tp.AvroSchema()})
	u := strings.TrimSuffix(p.d.Config().RegistryURL, "/") + "/subjects/" + url.PathEscape(tp.Subject(p.d.Config().Subname)) + "/versions"
	req, err := http.NewRequestWithContext(Ctx(p.t), http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	req.Close = true // no connection kept alive after the test (goleak)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatalf("register %s: %v", tp, err)
	}
	defer resp.Body.Close()
	var out struct{ ID int32 }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.ID == 0 {
		p.t.Fatalf("register %s: HTTP %d, %v", tp, resp.StatusCode, err)
	}
	return out.ID
}

// SilentServer listens on a loopback port, accepts connections and never
// answers (a schema registry that hangs); it returns its http:// URL, and
// t.Cleanup closes it and its connections.
func SilentServer(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String()
}

// SyncBuffer is a bytes.Buffer that a logger's (or a program's) several
// goroutines and a test may use at once.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
