package salprom

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/plugin/kprom"

	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
)

// Option configures an Exporter.
type Option func(*Exporter)

// Namespace sets the metric name prefix (default "salgo").
func Namespace(ns string) Option { return func(e *Exporter) { e.ns = ns } }

// WithoutKafkaMetrics leaves out franz-go's client metrics (kprom).
func WithoutKafkaMetrics() Option { return func(e *Exporter) { e.kafka = false } }

// LatencyBuckets sets the buckets, in seconds, of the write, end-to-end
// and command histograms (default: 100 µs to about 6.5 s, doubling).
func LatencyBuckets(b []float64) Option { return func(e *Exporter) { e.buckets = b } }

// Exporter implements sal.Metrics for Prometheus. One Exporter may serve
// several buses.
type Exporter struct {
	reg     prometheus.Registerer
	ns      string
	kafka   bool
	buckets []float64

	writeLat *prometheus.HistogramVec
	lat      *prometheus.HistogramVec
	cmd      *prometheus.HistogramVec
	counters []counter
	depth    *prometheus.Desc
	held     *prometheus.Desc

	clients atomic.Int64
	mu      sync.Mutex
	next    int
	sources map[int]func() []topics.TopicStats
}

// counter is one counter read from the snapshot.
type counter struct {
	desc   *prometheus.Desc
	writer bool // a writer's counter (else a reader's)
	get    func(*topics.TopicStats) uint64
}

var labels = []string{"component", "index", "topic"}

// New makes an Exporter and registers its collectors with reg (the
// Kafka client collectors are registered as clients come and go).
func New(reg prometheus.Registerer, opts ...Option) (*Exporter, error) {
	e := &Exporter{reg: reg, ns: "salgo", kafka: true, sources: map[int]func() []topics.TopicStats{}}
	for _, o := range opts {
		o(e)
	}
	if e.buckets == nil {
		e.buckets = prometheus.ExponentialBuckets(100e-6, 2, 17)
	}
	hist := func(name, help string, extra ...string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: e.ns, Name: name, Help: help, Buckets: e.buckets}, append(append([]string(nil), labels...), extra...))
	}
	e.writeLat = hist("write_ack_seconds", "Time from a write call to the broker's acknowledgement.")
	e.lat = hist("latency_seconds", "End-to-end latency of records read: receive time minus the writer's private_sndStamp.")
	e.cmd = hist("command_seconds", "Command round trips from sending to the end, by outcome (final ack code, timeout or closed).", "command", "outcome")
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(e.ns, "", name), help, labels, nil)
	}
	rd := func(f func(s *topics.ReaderStats) uint64) func(*topics.TopicStats) uint64 {
		return func(t *topics.TopicStats) uint64 { return f(&t.Reader) }
	}
	e.counters = []counter{
		{desc: desc("records_written_total", "Records acknowledged by the broker."), get: func(t *topics.TopicStats) uint64 { return t.Writer.Written }, writer: true},
		{desc: desc("write_failures_total", "Records rejected by validation or by Kafka."), get: func(t *topics.TopicStats) uint64 { return t.Writer.Failed }, writer: true},
		{desc: desc("records_received_total", "Records fetched by readers."), get: rd(func(s *topics.ReaderStats) uint64 { return s.Received })},
		{desc: desc("records_delivered_total", "Records queued or passed to a callback."), get: rd(func(s *topics.ReaderStats) uint64 { return s.Delivered })},
		{desc: desc("records_filtered_total", "Records for another SAL index."), get: rd(func(s *topics.ReaderStats) uint64 { return s.Filtered })},
		{desc: desc("records_overflow_total", "Records dropped because a reader's queue was full."), get: rd(func(s *topics.ReaderStats) uint64 { return s.Overflow })},
		{desc: desc("records_lost_total", "Records missing by private_seqNum gaps."), get: rd(func(s *topics.ReaderStats) uint64 { return s.Lost })},
		{desc: desc("records_out_of_order_total", "Records dropped as older than the last one."), get: rd(func(s *topics.ReaderStats) uint64 { return s.OutOfOrder })},
		{desc: desc("records_duplicate_total", "Records dropped as a repeat of the same writer's last private_seqNum."), get: rd(func(s *topics.ReaderStats) uint64 { return s.Duplicates })},
		{desc: desc("records_undecodable_total", "Records skipped: bad framing, unknown schema id or bad Avro."), get: rd(func(s *topics.ReaderStats) uint64 { return s.Undecodable })},
		{desc: desc("records_violations_total", "Records delivered that break a bound the reference does not enforce."), get: rd(func(s *topics.ReaderStats) uint64 { return s.Violations })},
		{desc: desc("schema_retries_total", "Writer schema lookups the registry did not answer, tried again (the topic's records wait meanwhile)."), get: rd(func(s *topics.ReaderStats) uint64 { return s.SchemaRetries })},
	}
	e.depth = desc("queue_depth", "Records waiting in readers' queues.")
	e.held = desc("records_held", "Records waiting in readers for a writer schema lookup.")
	for _, c := range []prometheus.Collector{e.writeLat, e.lat, e.cmd, snapshotCollector{e}} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("salprom: register: %w", err)
		}
	}
	return e, nil
}

// Option returns the sal option that connects a bus to this Exporter.
func (e *Exporter) Option() sal.Option { return sal.WithMetrics(e) }

// Attach implements sal.Metrics.
func (e *Exporter) Attach(snapshot func() []topics.TopicStats) func() {
	e.mu.Lock()
	defer e.mu.Unlock()
	id := e.next
	e.next++
	e.sources[id] = snapshot
	return func() {
		e.mu.Lock()
		delete(e.sources, id)
		e.mu.Unlock()
	}
}

// KafkaHooks implements sal.Metrics: a kprom collector per client,
// labelled with the client's name and unregistered when it closes.
func (e *Exporter) KafkaHooks(client string) []any {
	if !e.kafka {
		return nil
	}
	name := client + "-" + strconv.FormatInt(e.clients.Add(1), 10)
	return []any{kprom.NewMetrics(e.ns+"_kafka",
		kprom.Registerer(e.reg),
		kprom.WithStaticLabel(prometheus.Labels{"client": name}),
	)}
}

func (e *Exporter) values(t topics.TopicInfo) []string {
	return []string{t.Component, strconv.Itoa(t.Index), t.Topic}
}

// WriteLatency implements sal.Metrics.
func (e *Exporter) WriteLatency(t topics.TopicInfo) topics.Observer {
	return e.writeLat.WithLabelValues(e.values(t)...)
}

// Latency implements sal.Metrics.
func (e *Exporter) Latency(t topics.TopicInfo) topics.Observer {
	return e.lat.WithLabelValues(e.values(t)...)
}

// ObserveCommand implements sal.Metrics.
func (e *Exporter) ObserveCommand(t topics.TopicInfo, outcome string, d time.Duration) {
	name := t.Topic
	if n, ok := strings.CutPrefix(name, "command_"); ok && n != "" {
		name = n
	}
	e.cmd.WithLabelValues(append(e.values(t), name, outcome)...).Observe(d.Seconds())
}

// snapshotCollector reads the counters and gauges at scrape time.
type snapshotCollector struct{ e *Exporter }

func (s snapshotCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range s.e.counters {
		ch <- c.desc
	}
	ch <- s.e.depth
	ch <- s.e.held
}

type key struct {
	component string
	index     int
	topic     string
}

func (s snapshotCollector) Collect(ch chan<- prometheus.Metric) {
	e := s.e
	e.mu.Lock()
	srcs := make([]func() []topics.TopicStats, 0, len(e.sources))
	for _, f := range e.sources {
		srcs = append(srcs, f)
	}
	e.mu.Unlock()
	type agg struct {
		vals  []uint64
		depth int
		held  int
		read  bool
		write bool
	}
	sums := map[key]*agg{}
	var order []key
	for _, f := range srcs {
		for _, t := range f() {
			k := key{t.Component, t.Index, t.Topic}
			a := sums[k]
			if a == nil {
				a = &agg{vals: make([]uint64, len(e.counters))}
				sums[k] = a
				order = append(order, k)
			}
			for i, c := range e.counters {
				a.vals[i] += c.get(&t)
			}
			switch t.Role {
			case "reader":
				a.read = true
				a.depth += t.Reader.Queued
				a.held += t.Reader.Held
			case "writer":
				a.write = true
			}
		}
	}
	for _, k := range order {
		a := sums[k]
		lv := []string{k.component, strconv.Itoa(k.index), k.topic}
		for i, c := range e.counters {
			// Writer counters for topics written, reader counters for topics read.
			if (c.writer && !a.write) || (!c.writer && !a.read) {
				continue
			}
			ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(a.vals[i]), lv...)
		}
		if a.read {
			ch <- prometheus.MustNewConstMetric(e.depth, prometheus.GaugeValue, float64(a.depth), lv...)
			ch <- prometheus.MustNewConstMetric(e.held, prometheus.GaugeValue, float64(a.held), lv...)
		}
	}
}

var _ sal.Metrics = (*Exporter)(nil)
