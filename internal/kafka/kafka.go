package kafka

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// Config is how to reach the brokers.
type Config struct {
	Brokers []string
	// TLS enables TLS when non-nil.
	TLS *tls.Config
	// Mechanism is "" (no SASL), "SCRAM-SHA-512", "SCRAM-SHA-256" or "PLAIN".
	Mechanism string
	User      string
	Password  string
	// Acks is "0", "1" or "all" ("-1" is accepted for all).
	Acks string
	// Idempotent enables the idempotent producer (requires Acks "all").
	Idempotent bool
	ClientID   string
	Logger     *slog.Logger
	// Limit, when set, logs the client's warnings and errors instead of
	// Logger, with the message as the kind (a ratelog.Limiter's Log): a
	// broker that stays away is then reported once per interval, not at
	// every reconnect attempt. Debug and info records go to Logger.
	Limit func(level slog.Level, kind, msg string, args ...any) bool
	// NoClientMetrics turns off franz-go's KIP-714 client metrics (a
	// goroutine per client, and a compressor of ~0.4 MB held per client by
	// a broker that subscribes to them, as the in-process one does).
	NoClientMetrics bool
	// FetchMaxWait bounds a fetch long-poll; default franz-go's, 5 s. A
	// fetch returns as soon as a record arrives: the wait only sets how
	// often an idle consumer asks again.
	FetchMaxWait time.Duration
	// Hooks are franz-go hooks (kgo.Hook values) for the client.
	Hooks []any
	// ClientProps, ProducerProps and ConsumerProps are librdkafka
	// properties (see Check) for every client, the producer and the
	// consumers; a client's own ones come first, so ClientProps win, as
	// ts_salobj merges them.
	ClientProps, ProducerProps, ConsumerProps map[string]any
}

// propOpts returns the options of the properties for a client of role.
func (c Config) propOpts(role Role) ([]kgo.Opt, error) {
	own := c.ProducerProps
	if role == RoleConsumer {
		own = c.ConsumerProps
	}
	a, err := propOpts(role, role, own)
	if err != nil {
		return nil, err
	}
	b, err := propOpts(RoleClient, role, c.ClientProps)
	if err != nil {
		return nil, err
	}
	return append(a, b...), nil
}

// ErrBadConfig is matched by configuration errors.
var ErrBadConfig = errors.New("bad Kafka configuration")

func (c Config) opts() ([]kgo.Opt, error) {
	if len(c.Brokers) == 0 {
		return nil, fmt.Errorf("kafka: %w: no broker address", ErrBadConfig)
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(c.Brokers...),
		kgo.DialTimeout(10 * time.Second),
	}
	if c.ClientID != "" {
		opts = append(opts, kgo.ClientID(c.ClientID))
	}
	if c.NoClientMetrics {
		opts = append(opts, kgo.DisableClientMetrics())
	}
	if len(c.Hooks) > 0 {
		hooks := make([]kgo.Hook, len(c.Hooks))
		for i, h := range c.Hooks {
			hooks[i] = h
		}
		opts = append(opts, kgo.WithHooks(hooks...))
	}
	if c.TLS != nil {
		opts = append(opts, kgo.DialTLSConfig(c.TLS))
	}
	var mech sasl.Mechanism
	switch strings.ToUpper(c.Mechanism) {
	case "":
	case "SCRAM-SHA-512":
		mech = scram.Auth{User: c.User, Pass: c.Password}.AsSha512Mechanism()
	case "SCRAM-SHA-256":
		mech = scram.Auth{User: c.User, Pass: c.Password}.AsSha256Mechanism()
	case "PLAIN":
		mech = plain.Auth{User: c.User, Pass: c.Password}.AsMechanism()
	default:
		return nil, fmt.Errorf("kafka: %w: unknown SASL mechanism %q (want SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN)", ErrBadConfig, c.Mechanism)
	}
	if mech != nil {
		opts = append(opts, kgo.SASL(mech))
	}
	if c.Logger != nil {
		opts = append(opts, kgo.WithLogger(&logger{l: c.Logger, limit: c.Limit}))
	}
	return opts, nil
}

// ParseAcks checks an acks setting: "0", "1", "all" or "-1".
func ParseAcks(s string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "1":
		return "1", nil
	case "0":
		return "0", nil
	case "all", "-1":
		return "all", nil
	}
	return "", fmt.Errorf("kafka: %w: unknown acks value %q (want 0, 1 or all)", ErrBadConfig, s)
}

// Producer produces records and administers topics.
type Producer struct {
	cl  *kgo.Client
	adm *kadm.Client
	// maxRecs is the client's MaxBufferedRecords, or 0 when a limit on
	// buffered bytes is set too: see Produce.
	maxRecs  int64
	inflight atomic.Int64 // records produced whose promise has not run yet
}

// NewProducer makes a producer with no linger (as the reference), the
// given acks and idempotence.
func NewProducer(c Config) (*Producer, error) {
	opts, err := c.opts()
	if err != nil {
		return nil, err
	}
	acks, err := ParseAcks(c.Acks)
	if err != nil {
		return nil, err
	}
	// No linger and no compression, as the reference's producer: telemetry
	// is noisy floats that snappy does not shrink, so it only costs CPU.
	opts = append(opts, kgo.ProducerLinger(0), kgo.MaxBufferedRecords(100_000), kgo.ProducerBatchCompression(kgo.NoCompression()))
	props, err := c.propOpts(RoleProducer)
	if err != nil {
		return nil, err
	}
	switch acks {
	case "0":
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
	case "1":
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	default:
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
		if !c.Idempotent {
			opts = append(opts, kgo.DisableIdempotentWrite())
		}
	}
	if c.Idempotent && acks != "all" {
		return nil, fmt.Errorf("kafka: %w: the idempotent producer needs acks=all, not %s", ErrBadConfig, acks)
	}
	cl, err := kgo.NewClient(append(opts, props...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka: %w: %v", ErrBadConfig, err)
	}
	p := &Producer{cl: cl, adm: kadm.NewClient(cl)}
	// OptValue gives these limits as int64 (an assertion to int read 0,
	// which made every record with a cancelable ctx cancelable).
	if maxBytes, _ := cl.OptValue(kgo.MaxBufferedBytes).(int64); maxBytes == 0 {
		p.maxRecs, _ = cl.OptValue(kgo.MaxBufferedRecords).(int64)
	}
	return p, nil
}

// Ping checks that a broker answers within ctx.
func (p *Producer) Ping(ctx context.Context) error { return ping(ctx, p.cl) }

func ping(ctx context.Context, cl *kgo.Client) error {
	if err := cl.Ping(ctx); err != nil {
		return fmt.Errorf("kafka: no broker reachable: %w", err)
	}
	return nil
}

// Acker is told the outcome of a produced record.
type Acker interface {
	// Acked runs once the broker acknowledged the record (err nil) or it
	// failed, on a franz-go goroutine, one call at a time: it must not
	// block.
	Acked(partition int32, offset int64, err error)
}

// Message is a record in flight, owned by the caller of Produce until
// its Acker is told the outcome: franz-go's record, and who to tell. A
// caller that produces many records keeps its Messages in a pool (the
// writer embeds one in its per-record state). franz-go calls the promise
// with the record, the first field, which leads back to the Message;
// franz-go no longer touches the record once its promise ran.
type Message struct {
	rec kgo.Record
	p   *Producer
	a   Acker
}

// promise is every record's franz-go promise.
func promise(r *kgo.Record, err error) {
	m := (*Message)(unsafe.Pointer(r))
	p, a, part, off := m.p, m.a, r.Partition, r.Offset
	*m = Message{}
	p.inflight.Add(-1)
	a.Acked(part, off, err)
}

// bufferMargin is how far below franz-go's MaxBufferedRecords a record
// may be produced without a cancelable wait: franz-go counts a record as
// buffered until just after its promise returned, Produce's count until
// just before, so the two differ by the promises running.
const bufferMargin = 64

// Produce sends a record asynchronously with m, which the caller must not
// touch until a (not nil) is told the outcome (see Acker). ts is the
// record's timestamp (the caller has read the clock already; franz-go
// would read it again).
//
// Once buffered, a record must not be cancelable: franz-go fails a whole
// buffered batch when the context of its first record ends, be it the
// record's own Context or the ctx given to franz-go's Produce. A command
// handler's cancelled context would take the CMD_ABORTED ack written
// after it down too, and a Write that gave up while no broker answered
// would fail the records of other writers buffered behind it (seen in
// internal/faults). So ctx only bounds waiting for buffer space, and
// callers bound their wait for the ack. While fewer records than the
// client's buffer holds are in flight, which is the usual case, franz-go
// cannot block, and the record goes to it with ctx's values but no
// cancellation. Only when the buffer may be full does Produce pay for a
// context that ctx cancels while franz-go waits for space (a ctx ending
// within the instant between buffering and stop still cancels it).
func (p *Producer) Produce(ctx context.Context, m *Message, topic string, key, value []byte, ts time.Time, a Acker) {
	base, cancelable := ctx, ctx.Done() != nil
	if cancelable {
		base = context.WithoutCancel(ctx)
	}
	m.rec = kgo.Record{Topic: topic, Key: key, Value: value, Timestamp: ts, Context: base}
	m.p, m.a = p, a
	if n := p.inflight.Add(1); !cancelable || n <= p.maxRecs-bufferMargin {
		p.cl.Produce(base, &m.rec, promise)
		return
	}
	pctx, cancel := context.WithCancel(base)
	stop := context.AfterFunc(ctx, cancel)
	p.cl.Produce(pctx, &m.rec, promise)
	stop()
}

// Flush waits until every buffered record is acknowledged.
func (p *Producer) Flush(ctx context.Context) error { return p.cl.Flush(ctx) }

// Close flushes nothing and stops the client: call Flush first.
func (p *Producer) Close() { p.cl.Close() }

// TopicSpec describes a topic to create if missing.
type TopicSpec struct {
	Name        string
	Partitions  int32
	Replication int16
	Configs     map[string]string
}

// EnsureTopics creates the topics that do not exist yet, as the reference
// does, tolerating topics that already exist or appear concurrently. The
// CreateTopics answer is authoritative (metadata listings may be cached).
func (p *Producer) EnsureTopics(ctx context.Context, specs []TopicSpec) error {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	exist, err := p.existing(ctx, names)
	if err != nil {
		return err
	}
	// One CreateTopics request per distinct setting (partitions,
	// replication, configs), not one per topic: a Remote of a large
	// component creates dozens of topics at once.
	type group struct {
		partitions int32
		rep        int16
		cfg        map[string]*string
		names      []string
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, s := range specs {
		if exist[s.Name] {
			continue
		}
		rep := s.Replication
		if rep <= 0 {
			rep = 1
		}
		keys := make([]string, 0, len(s.Configs))
		for k, v := range s.Configs {
			keys = append(keys, k+"="+v)
		}
		slices.Sort(keys)
		key := fmt.Sprint(max(s.Partitions, 1), rep, keys)
		g := byKey[key]
		if g == nil {
			cfg := make(map[string]*string, len(s.Configs))
			for k, v := range s.Configs {
				cfg[k] = kadm.StringPtr(v)
			}
			g = &group{partitions: max(s.Partitions, 1), rep: rep, cfg: cfg}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.names = append(g.names, s.Name)
	}
	var created []string
	for _, g := range groups {
		created = append(created, g.names...)
		resps, err := p.adm.CreateTopics(ctx, g.partitions, g.rep, g.cfg, g.names...)
		if err != nil {
			return fmt.Errorf("kafka: create topics %s: %w", strings.Join(g.names, ", "), err)
		}
		for _, name := range g.names {
			resp, ok := resps[name]
			err := resp.Err
			if !ok {
				err = errors.New("no answer from the broker")
			}
			if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
				return fmt.Errorf("kafka: create topic %s: %w", name, err)
			}
		}
	}
	// The client cached "does not exist" for the created topics (the
	// question above) and kadm's listings read that cache for the metadata
	// minimum age: ask again, so Watermarks sees them now. On a real
	// cluster the answer may still lack leaders; callers retry for that.
	if len(created) > 0 {
		if _, err := p.topicNames(ctx, created); err != nil {
			return err
		}
	}
	return nil
}

// existing lists which of the topics exist (see topicNames).
func (p *Producer) existing(ctx context.Context, names []string) (map[string]bool, error) {
	found, err := p.topicNames(ctx, names)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(found))
	for _, n := range found {
		out[n] = true
	}
	return out, nil
}

// ListTopics lists, sorted, the topics whose names start with prefix (see
// topicNames).
func (p *Producer) ListTopics(ctx context.Context, prefix string) ([]string, error) {
	names, err := p.topicNames(ctx, nil) // no topics named: all of them
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// topicNames returns which of the named topics exist (all topics when
// names is empty) with an uncached metadata request. franz-go stores the
// answer in the cache kadm's listings read, including "does not exist"
// (see EnsureTopics).
func (p *Producer) topicNames(ctx context.Context, names []string) ([]string, error) {
	req := kmsg.NewPtrMetadataRequest()
	for _, n := range names {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(n)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(ctx, p.cl)
	if err != nil {
		return nil, fmt.Errorf("kafka: list topics: %w", err)
	}
	var out []string
	for _, t := range resp.Topics {
		if t.Topic != nil && t.ErrorCode == 0 {
			out = append(out, *t.Topic)
		}
	}
	return out, nil
}

// Watermarks of one partition.
type Watermarks struct{ Low, High int64 }

// Watermarks lists the low and high watermarks of every partition of the topics.
func (p *Producer) Watermarks(ctx context.Context, topics ...string) (map[string]map[int32]Watermarks, error) {
	starts, err := p.adm.ListStartOffsets(ctx, topics...)
	if err != nil {
		return nil, fmt.Errorf("kafka: list start offsets: %w", err)
	}
	ends, err := p.adm.ListEndOffsets(ctx, topics...)
	if err != nil {
		return nil, fmt.Errorf("kafka: list end offsets: %w", err)
	}
	out := make(map[string]map[int32]Watermarks, len(topics))
	var firstErr error
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("kafka: end offset of %s[%d]: %w", o.Topic, o.Partition, o.Err)
			}
			return
		}
		m := out[o.Topic]
		if m == nil {
			m = map[int32]Watermarks{}
			out[o.Topic] = m
		}
		w := m[o.Partition]
		w.High = o.Offset
		m[o.Partition] = w
	})
	starts.Each(func(o kadm.ListedOffset) {
		if o.Err != nil {
			return
		}
		if m := out[o.Topic]; m != nil {
			w := m[o.Partition]
			w.Low = o.Offset
			m[o.Partition] = w
		}
	})
	if firstErr != nil {
		return nil, firstErr
	}
	for _, t := range topics {
		if len(out[t]) == 0 {
			return nil, fmt.Errorf("kafka: topic %s has no partitions", t)
		}
	}
	return out, nil
}

// Record is one consumed record. Its slices are only valid during the
// callback that receives it.
type Record struct {
	Topic     string
	Partition int32
	Offset    int64
	Key       []byte
	Value     []byte
	Timestamp time.Time
}

// Consumer reads assigned partitions from exact offsets, with no group.
type Consumer struct {
	cl *kgo.Client
}

// Start is where a partition starts: an exact offset (one the client must
// resolve first would miss the long-poll already in flight for the other
// partitions). An offset the broker no longer holds starts at the
// beginning.
type Start struct{ Offset int64 }

// NewConsumer makes a consumer of the given partitions.
func NewConsumer(c Config, assign map[string]map[int32]Start) (*Consumer, error) {
	opts, err := c.opts()
	if err != nil {
		return nil, err
	}
	parts := make(map[string]map[int32]kgo.Offset, len(assign))
	for t, ps := range assign {
		m := make(map[int32]kgo.Offset, len(ps))
		for p, s := range ps {
			m[p] = kgo.NewOffset().At(s.Offset)
		}
		parts[t] = m
	}
	opts = append(opts,
		kgo.ConsumePartitions(parts),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
	)
	if c.FetchMaxWait > 0 {
		opts = append(opts, kgo.FetchMaxWait(c.FetchMaxWait))
	}
	props, err := c.propOpts(RoleConsumer)
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(append(opts, props...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka: %w: %v", ErrBadConfig, err)
	}
	return &Consumer{cl: cl}, nil
}

// ErrClosed is returned by Poll once the consumer is closed.
var ErrClosed = errors.New("kafka: consumer closed")

// Poll waits for records and calls fn for each, in order per partition.
// Fetch errors that are not retried internally are returned joined.
func (c *Consumer) Poll(ctx context.Context, fn func(*Record)) error {
	fs := c.cl.PollFetches(ctx)
	if fs.IsClientClosed() {
		return ErrClosed
	}
	var errs []error
	fs.EachError(func(t string, p int32, err error) {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return
		}
		errs = append(errs, fmt.Errorf("kafka: fetch %s[%d]: %w", t, p, err))
	})
	var r Record
	fs.EachRecord(func(kr *kgo.Record) {
		r = Record{Topic: kr.Topic, Partition: kr.Partition, Offset: kr.Offset, Key: kr.Key, Value: kr.Value, Timestamp: kr.Timestamp}
		fn(&r)
	})
	return errors.Join(errs...)
}

// Ping checks that a broker answers within ctx.
func (c *Consumer) Ping(ctx context.Context) error { return ping(ctx, c.cl) }

// Close stops the consumer; a blocked Poll returns ErrClosed.
func (c *Consumer) Close() { c.cl.Close() }

type logger struct {
	l     *slog.Logger
	limit func(level slog.Level, kind, msg string, args ...any) bool
}

func (l *logger) Level() kgo.LogLevel {
	ctx := context.Background()
	switch {
	case l.l.Enabled(ctx, slog.LevelDebug):
		return kgo.LogLevelDebug
	case l.l.Enabled(ctx, slog.LevelInfo):
		return kgo.LogLevelWarn // kgo's info level is chatty; keep it out of Info logs
	case l.l.Enabled(ctx, slog.LevelWarn):
		return kgo.LogLevelWarn
	}
	return kgo.LogLevelError
}

func (l *logger) Log(level kgo.LogLevel, msg string, keyvals ...any) {
	var lv slog.Level
	switch level {
	case kgo.LogLevelError:
		lv = slog.LevelError
	case kgo.LogLevelWarn:
		lv = slog.LevelWarn
	case kgo.LogLevelInfo:
		lv = slog.LevelInfo
	default:
		lv = slog.LevelDebug
	}
	if l.limit != nil && lv >= slog.LevelWarn {
		l.limit(lv, "kafka:"+msg, "kafka: "+msg, keyvals...)
		return
	}
	l.l.Log(context.Background(), lv, "kafka: "+msg, keyvals...)
}
