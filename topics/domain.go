package topics

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/lsst-sal/salgo/internal/kafka"
	"github.com/lsst-sal/salgo/internal/ratelog"
	"github.com/lsst-sal/salgo/internal/registry"
	salxml "github.com/lsst-sal/salgo/xml"
)

// DefaultConnectTimeout bounds NewDomain's broker check when ctx has no deadline.
const DefaultConnectTimeout = 30 * time.Second

// Domain is one process's connection to Kafka and the schema registry:
// one producer shared by every writer, and the registry caches. Instances
// (component instances) are made from it.
type Domain struct {
	cfg    Config
	prod   *kafka.Producer
	reg    *registry.Client
	log    *slog.Logger
	origin int
	// userHost is user@fqdn, as ts_salobj's Domain.user_host.
	userHost string

	detach func()

	mu        sync.Mutex
	identity  string // the default identity (see DefaultIdentity)
	closed    bool
	ensured   map[string]bool
	instances map[*Instance]struct{}
	closers   map[*closer]struct{} // see onClose
	closerSeq uint64
	flushers  map[*flusher]struct{} // see onFlush
}

// NewDomain connects to the brokers of cfg and checks that one answers
// within ctx (DefaultConnectTimeout when ctx has no deadline).
func NewDomain(ctx context.Context, cfg Config) (*Domain, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	// One limit for the warnings of all the Domain's Kafka clients: a
	// broker that is away is reported once per interval, not by every
	// client at every reconnect.
	cfg.rl = ratelog.New(cfg.Logger, LogInterval)
	reg, err := registry.New(cfg.RegistryURL, nil, cfg.RegistryTimeout)
	if err != nil {
		return nil, fmt.Errorf("topics: %w: %v", ErrConfig, err)
	}
	d := &Domain{
		cfg:       cfg,
		reg:       reg,
		log:       cfg.Logger,
		origin:    os.Getpid(),
		userHost:  userHost(),
		identity:  userHost(),
		ensured:   map[string]bool{},
		instances: map[*Instance]struct{}{},
	}
	prod, err := kafka.NewProducer(d.cfg.kafkaFor("producer"))
	if err != nil {
		return nil, fmt.Errorf("topics: %w: %v", ErrConfig, err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultConnectTimeout)
		defer cancel()
	}
	if err := prod.Ping(ctx); err != nil {
		prod.Close()
		return nil, fmt.Errorf("topics: brokers %s (%s): %w", strings.Join(cfg.Brokers, ","), cfg.Protocol, err)
	}
	d.prod = prod
	if cfg.Metrics != nil {
		d.detach = cfg.Metrics.Attach(d.Stats)
	}
	return d, nil
}

// Config returns the configuration in force (defaults filled).
func (d *Domain) Config() Config { return d.cfg }

// Definitions returns the component definitions.
func (d *Domain) Definitions() *salxml.Definitions { return d.cfg.Definitions }

// Origin is the process id written as private_origin.
func (d *Domain) Origin() int { return d.origin }

// UserHost is user@fqdn, as ts_salobj's Domain.user_host: the user as
// Python's getpass.getuser() finds it, the host as socket.getfqdn().
func (d *Domain) UserHost() string { return d.userHost }

// DefaultIdentity is the private_identity of Instances made without one
// (Remotes without an Identity option), as ts_salobj's
// Domain.default_identity: UserHost until SetDefaultIdentity.
func (d *Domain) DefaultIdentity() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.identity
}

// SetDefaultIdentity sets DefaultIdentity for the Instances made from now
// on. A CSC sets it to its own Name[:index], as ts_salobj's Controller
// does, so that the Remotes a CSC makes on its Domain command as the CSC.
func (d *Domain) SetDefaultIdentity(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.identity = id
}

// Logger returns the Domain's logger.
func (d *Domain) Logger() *slog.Logger { return d.log }

// Component returns the named component's definition.
func (d *Domain) Component(name string) (*salxml.Component, error) {
	return d.cfg.Definitions.Component(name)
}

// Close closes every CSC, script, Controller and Remote made on the
// Domain, in that order (each as its own Close does: commands in flight
// end with ErrClosed, goroutines stop, Done channels close), then every
// Instance still open, waits up to 10 s for buffered writes to be
// acknowledged, and disconnects. It is safe to call twice.
func (d *Domain) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	d.mu.Unlock()
	d.closeRoles()
	d.mu.Lock()
	ins := make([]*Instance, 0, len(d.instances))
	for in := range d.instances {
		ins = append(ins, in)
	}
	d.mu.Unlock()
	for _, in := range ins {
		in.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := d.prod.Flush(ctx)
	d.prod.Close()
	d.reg.Close()
	if d.detach != nil {
		d.detach()
	}
	if err != nil {
		return fmt.Errorf("topics: flush at close: %w", err)
	}
	return nil
}

// ensureTopics creates the topics not yet known to exist.
func (d *Domain) ensureTopics(ctx context.Context, ts []*salxml.Topic) error {
	d.mu.Lock()
	var specs []kafka.TopicSpec
	seen := map[string]bool{}
	for _, t := range ts {
		name := t.KafkaName(d.cfg.Subname)
		if d.ensured[name] || seen[name] {
			continue
		}
		seen[name] = true
		cfg := map[string]string{}
		if t.Kind == salxml.Event {
			cfg["cleanup.policy"] = "compact"
		}
		if d.cfg.Embedded {
			cfg["segment.bytes"] = "1048576" // 1 MiB: the embedded broker stalls while growing larger segments
		}
		specs = append(specs, kafka.TopicSpec{Name: name, Partitions: 1, Replication: d.cfg.Replication, Configs: cfg})
	}
	d.mu.Unlock()
	if len(specs) == 0 {
		return nil
	}
	if err := d.prod.EnsureTopics(ctx, specs); err != nil {
		return fmt.Errorf("topics: %w", err)
	}
	d.mu.Lock()
	for _, s := range specs {
		d.ensured[s.Name] = true
	}
	d.mu.Unlock()
	return nil
}

// watermarks lists the watermarks of the topics' partitions. A topic
// created moments ago can still be unknown to the broker answering, or have
// no partition leader yet on a real cluster, so on an error the topics are
// ensured again and the watermarks retried, for up to 10 s or until ctx is
// done. (EnsureTopics refreshes the client's metadata cache for the topics
// it creates, so on the embedded broker the first attempt succeeds.)
func (d *Domain) watermarks(ctx context.Context, ts []*salxml.Topic) (map[string]map[int32]kafka.Watermarks, error) {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.KafkaName(d.cfg.Subname)
	}
	return d.watermarksOf(ctx, names)
}

// ensuredAll reports whether this Domain created (or found) every named
// topic: an error listing their watermarks is then the broker's metadata
// catching up, not a missing topic.
func (d *Domain) ensuredAll(names []string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, n := range names {
		if !d.ensured[n] {
			return false
		}
	}
	return true
}

// watermarksOf is watermarks by Kafka topic name.
func (d *Domain) watermarksOf(ctx context.Context, names []string) (map[string]map[int32]kafka.Watermarks, error) {
	marks, err := d.prod.Watermarks(ctx, names...)
	deadline := time.Now().Add(10 * time.Second)
	wait := 10 * time.Millisecond
	for err != nil {
		if ctx.Err() != nil || time.Now().After(deadline) {
			return nil, fmt.Errorf("topics: %w", err)
		}
		fresh, perr := kafka.NewProducer(d.cfg.kafka())
		if perr != nil {
			return nil, fmt.Errorf("topics: %w", perr)
		}
		marks, err = fresh.Watermarks(ctx, names...)
		fresh.Close()
		if err == nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
	return marks, nil
}

// register registers a topic's schema and returns its id.
func (d *Domain) register(ctx context.Context, t *salxml.Topic) (int32, error) {
	id, err := d.reg.Register(ctx, t.Subject(d.cfg.Subname), t.AvroSchema())
	if err != nil {
		return 0, fmt.Errorf("topics: %s: %w", t, err)
	}
	return int32(id), nil
}

// Flush waits until every record written so far is acknowledged by the
// broker, the records that roles on d have queued to write themselves
// (a Controller's logMessages) included.
func (d *Domain) Flush(ctx context.Context) error {
	d.mu.Lock()
	fs := make([]*flusher, 0, len(d.flushers))
	for f := range d.flushers {
		fs = append(fs, f)
	}
	d.mu.Unlock()
	for _, f := range fs {
		if err := f.fn(ctx); err != nil {
			return fmt.Errorf("topics: flush: %w", err)
		}
	}
	if err := d.prod.Flush(ctx); err != nil {
		return fmt.Errorf("topics: flush: %w", err)
	}
	return nil
}
