package topics

import (
	"sort"
	"time"
)

// Metrics receives the runtime's measurements, for an exporter such as
// the Prometheus adapter in sal/salprom. Set it in Config.Metrics; nil (the
// default) turns measuring off, and then the hot paths only test a nil
// observer.
//
// Counters and gauges are not pushed: they are the atomic counters every
// reader and writer keeps anyway (ReaderStats, WriterStats), and an
// exporter reads them through the snapshot function it is given by Attach,
// when it is scraped. Only distributions are observed as they happen.
type Metrics interface {
	// Attach is called once by NewDomain with a function that snapshots
	// the counters and gauges of every reader and writer of the Domain.
	// The returned detach function is called by Domain.Close.
	Attach(snapshot func() []TopicStats) (detach func())
	// KafkaHooks returns franz-go hooks (values implementing kgo hook
	// interfaces) for a new Kafka client of the Domain, or nil. role says
	// what the client does: "producer" (the Domain's one producer) or
	// "consumer-<component>[:<index>]" (an Instance's consumer); several
	// open clients may share a role.
	KafkaHooks(role string) []any
	// WriteLatency returns the observer of a writer's time from the write
	// call to the broker's acknowledgement, in seconds (nil for none). It
	// is called once per writer.
	WriteLatency(TopicInfo) Observer
	// Latency returns the observer of a reader's end-to-end latency in
	// seconds: receive time minus the writer's private_sndStamp (nil for
	// none). It is called once per reader; history is not observed.
	Latency(TopicInfo) Observer
	// ObserveCommand is called once for each command a Remote sent, when
	// it ends: outcome is the final ack code's name ("CMD_COMPLETE",
	// "CMD_FAILED", ...), "timeout" (no final ack in time) or "closed"
	// (the Remote closed first); d is the time from sending to the end.
	ObserveCommand(t TopicInfo, outcome string, d time.Duration)
}

// Observer records one value of a distribution. prometheus.Observer
// satisfies it.
type Observer interface {
	Observe(float64)
}

// TopicInfo names one topic of one component instance.
type TopicInfo struct {
	Component string
	Index     int
	// Topic is the SAL name, e.g. "logevent_summaryState" or "command_start".
	Topic string
	// Kind is "command", "event", "telemetry" or "ackcmd".
	Kind string
}

// TopicStats are the counters and gauges of one reader or one writer.
type TopicStats struct {
	TopicInfo
	// Role is "reader" or "writer"; the matching field below is set.
	Role   string
	Reader ReaderStats
	Writer WriterStats
}

// Stats snapshots the counters of every reader and writer of every open
// Instance of the Domain, sorted by component, index, topic and role.
func (d *Domain) Stats() []TopicStats {
	d.mu.Lock()
	ins := make([]*Instance, 0, len(d.instances))
	for in := range d.instances {
		ins = append(ins, in)
	}
	d.mu.Unlock()
	var out []TopicStats
	for _, in := range ins {
		out = append(out, in.Stats()...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Component != b.Component {
			return a.Component < b.Component
		}
		if a.Index != b.Index {
			return a.Index < b.Index
		}
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		return a.Role < b.Role
	})
	return out
}

// Stats snapshots the counters of the instance's readers and writers.
func (in *Instance) Stats() []TopicStats {
	in.mu.Lock()
	readers := append([]*Reader(nil), in.order...)
	writers := make([]*Writer, 0, len(in.writers))
	for _, w := range in.writers {
		writers = append(writers, w)
	}
	in.mu.Unlock()
	out := make([]TopicStats, 0, len(readers)+len(writers))
	for _, r := range readers {
		out = append(out, TopicStats{TopicInfo: in.info(r.topic.SALName, r.topic.Kind.String()), Role: "reader", Reader: r.Stats()})
	}
	for _, w := range writers {
		out = append(out, TopicStats{TopicInfo: in.info(w.topic.SALName, w.topic.Kind.String()), Role: "writer", Writer: w.Stats()})
	}
	return out
}

func (in *Instance) info(topic, kind string) TopicInfo {
	return TopicInfo{Component: in.comp.Name, Index: in.index, Topic: topic, Kind: kind}
}

// TopicInfo names topic t of this instance, as Metrics sees it.
func (in *Instance) TopicInfo(topic string) TopicInfo {
	k := ""
	if t := in.comp.Topic(topic); t != nil {
		k = t.Kind.String()
	}
	return in.info(topic, k)
}

// Metrics returns the Domain's Metrics, or nil.
func (d *Domain) Metrics() Metrics { return d.cfg.Metrics }
