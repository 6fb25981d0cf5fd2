package sal

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/lsst-sal/salgo/internal/embedded"
	"github.com/lsst-sal/salgo/topics"
)

// Option overrides one setting of the environment.
type Option interface{ apply(*settings) }

type settings struct {
	cfg      topics.Config
	embedded bool             // force the embedded broker
	local    embedded.Options // the embedded broker's ports and data folder
}

type optFunc func(*settings)

func (f optFunc) apply(s *settings) { f(s) }

// WithBrokers sets the Kafka bootstrap addresses, overriding LSST_KAFKA_BROKER_ADDR.
func WithBrokers(addrs ...string) Option {
	return optFunc(func(s *settings) { s.cfg.Brokers = addrs })
}

// WithRegistry sets the schema registry URL, overriding LSST_SCHEMA_REGISTRY_URL.
func WithRegistry(url string) Option { return optFunc(func(s *settings) { s.cfg.RegistryURL = url }) }

// WithSubname sets the topic subname, overriding LSST_TOPIC_SUBNAME: required
// with a broker (as in ts_salobj); the in-process bus defaults to "sal".
func WithSubname(sub string) Option { return optFunc(func(s *settings) { s.cfg.Subname = sub }) }

// WithAcks sets the producer acks ("0", "1" or "all"), overriding LSST_KAFKA_PRODUCER_WAIT_ACKS (default "1").
func WithAcks(acks string) Option { return optFunc(func(s *settings) { s.cfg.Acks = acks }) }

// WithIdempotence turns on the idempotent producer (with acks "all").
func WithIdempotence() Option {
	return optFunc(func(s *settings) { s.cfg.Acks, s.cfg.Idempotent = "all", true })
}

// WithSASL sets SASL credentials and mechanism (default SCRAM-SHA-512) over
// protocol SASL_PLAINTEXT or SASL_SSL, overriding LSST_KAFKA_SECURITY_*.
func WithSASL(protocol, mechanism, user, password string) Option {
	return optFunc(func(s *settings) {
		s.cfg.Protocol, s.cfg.Mechanism, s.cfg.User, s.cfg.Password = protocol, mechanism, user, password
	})
}

// WithTLS sets the TLS configuration (and protocol SSL unless SASL_SSL is set).
func WithTLS(c *tls.Config) Option {
	return optFunc(func(s *settings) {
		s.cfg.TLS = c
		if s.cfg.Protocol == "" || s.cfg.Protocol == "PLAINTEXT" {
			s.cfg.Protocol = "SSL"
		}
	})
}

// WithDefinitions sets the component definitions, overriding TS_XML_DIR
// (default: ts_xml from TS_XML_DIR, else EmbeddedDefinitions).
func WithDefinitions(d *Definitions) Option {
	return optFunc(func(s *settings) { s.cfg.Definitions = d })
}

// WithLogger sets the logger, overriding slog.Default().
func WithLogger(l *slog.Logger) Option { return optFunc(func(s *settings) { s.cfg.Logger = l }) }

// WithMetrics sends the SDK's measurements to m (for Prometheus:
// sal/salprom). Without it nothing is measured beyond the counters every
// reader and writer keeps (Bus.Stats).
func WithMetrics(m topics.Metrics) Option { return optFunc(func(s *settings) { s.cfg.Metrics = m }) }

// WithMaxHistoryRead sets the history depth of indexed components, overriding LSST_MAX_HISTORY_READ (default 500).
func WithMaxHistoryRead(n int) Option {
	return optFunc(func(s *settings) { s.cfg.MaxHistoryRead = n })
}

// WithConfig sets the whole configuration, overriding the environment (the
// options after it still apply): e.g. another Bus's Config, to connect a
// second bus to the same brokers and registry.
func WithConfig(c BusConfig) Option { return optFunc(func(s *settings) { s.cfg = c }) }

// WithEmbedded forces the in-process broker and registry even when
// LSST_KAFKA_BROKER_ADDR is set.
func WithEmbedded() Option { return optFunc(func(s *settings) { s.embedded = true }) }

// WithEmbeddedPorts sets the loopback ports of the in-process broker and
// registry (0 picks a free port, the default), for other processes to use.
func WithEmbeddedPorts(kafka, registry int) Option {
	return optFunc(func(s *settings) { s.local.KafkaPort, s.local.RegistryPort = kafka, registry })
}

// WithEmbeddedDataDir keeps the in-process broker's bus in the folder dir
// (created if needed): its topics, with their ids and records (under
// dir/kafka), and every registered schema with its id (dir/registry.jsonl).
// Started again on the same folder, the bus has its history; with the same
// ports too (WithEmbeddedPorts), the clients of other processes carry on
// as after a real broker's restart. Without it (the default) the bus is in
// memory: a restart is a new, empty bus, and every client must be
// restarted. Connect refuses a folder another bus is using.
func WithEmbeddedDataDir(dir string) Option {
	return optFunc(func(s *settings) { s.local.DataDir = dir })
}

// Bus is a topics.Domain plus, on the embedded default, the in-process
// broker it runs on; Close closes both. The Domain's methods (Tap, Stats,
// Offsets, Flush, NewInstance, Config, ...) are documented in package
// topics: go doc github.com/lsst-sal/salgo/topics.Domain. Bus adds the
// roles' constructors (NewRemote, NewController, NewCSC, NewScript) and
// CheckSchemas.
type Bus struct {
	*topics.Domain
	local *embedded.Cluster
}

// Embedded reports whether the bus runs on the in-process broker.
func (b *Bus) Embedded() bool { return b.local != nil }

// Close closes the Domain (and every Remote and Controller on it), then
// the embedded broker if there is one. It is safe to call twice.
func (b *Bus) Close() error {
	err := b.Domain.Close()
	if b.local != nil {
		b.local.Close()
	}
	return err
}

// Connect makes a Bus from the environment and opts; with no broker
// configured it starts the embedded one and says so once in the log.
func Connect(ctx context.Context, opts ...Option) (*Bus, error) {
	cfg, err := topics.ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	s := &settings{cfg: cfg}
	for _, o := range opts {
		o.apply(s)
	}
	if s.cfg.Logger == nil {
		s.cfg.Logger = slog.Default()
	}
	var local *embedded.Cluster
	if s.embedded || len(s.cfg.Brokers) == 0 {
		local, err = embedded.Start(s.local)
		if err != nil {
			return nil, fmt.Errorf("sal: %w", err)
		}
		s.cfg.Brokers = local.Brokers()
		s.cfg.RegistryURL = local.RegistryURL()
		s.cfg.Protocol, s.cfg.User, s.cfg.Password, s.cfg.TLS = "", "", "", nil
		s.cfg.Embedded = true
		attrs := []any{"brokers", s.cfg.Brokers, "registry", s.cfg.RegistryURL}
		if s.local.DataDir != "" {
			attrs = append(attrs, "data", s.local.DataDir)
		}
		s.cfg.Logger.Info("sal: no Kafka broker configured (LSST_KAFKA_BROKER_ADDR unset): running on an in-process broker and schema registry", attrs...)
	}
	d, err := topics.NewDomain(ctx, s.cfg)
	if err != nil {
		if local != nil {
			local.Close()
		}
		return nil, err
	}
	return &Bus{Domain: d, local: local}, nil
}

var (
	defMu  sync.Mutex
	defBus *Bus
)

// ErrDefaultConfigured is returned by Default when options are given
// after the process-wide Bus was made: they would be ignored.
var ErrDefaultConfigured = errors.New("sal: the process-wide bus is already connected; options apply only to the call that connects it (the first Default, NewRemote, NewController or NewCSC)")

// Default returns the process-wide Bus, connecting it on first use from
// the environment and opts (NewRemote, NewController and NewCSC connect it
// with none). Later calls return the same Bus; a later call with options
// returns ErrDefaultConfigured instead of ignoring them. Close closes it.
func Default(ctx context.Context, opts ...Option) (*Bus, error) {
	defMu.Lock()
	defer defMu.Unlock()
	if defBus != nil {
		if len(opts) > 0 {
			return nil, ErrDefaultConfigured
		}
		return defBus, nil
	}
	b, err := Connect(ctx, opts...)
	if err != nil {
		return nil, err
	}
	defBus = b
	return b, nil
}

// Close closes the process-wide Bus, if one was made. It is safe to call twice.
func Close() error {
	defMu.Lock()
	b := defBus
	defBus = nil
	defMu.Unlock()
	if b == nil {
		return nil
	}
	return b.Close()
}
