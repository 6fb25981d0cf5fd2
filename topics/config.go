package topics

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/lsst-sal/salgo/internal/kafka"
	"github.com/lsst-sal/salgo/internal/ratelog"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// Environment variables read by ConfigFromEnv: the ones ts_salobj reads,
// plus LSST_KAFKA_TLS_* for TLS files (ts_salobj takes those from its
// librdkafka YAML configuration instead).
const (
	EnvBroker         = "LSST_KAFKA_BROKER_ADDR"
	EnvRegistry       = "LSST_SCHEMA_REGISTRY_URL"
	EnvSubname        = "LSST_TOPIC_SUBNAME"
	EnvReplication    = "LSST_KAFKA_REPLICATION_FACTOR"
	EnvAcks           = "LSST_KAFKA_PRODUCER_WAIT_ACKS"
	EnvUser           = "LSST_KAFKA_SECURITY_USERNAME"
	EnvPassword       = "LSST_KAFKA_SECURITY_PASSWORD"
	EnvProtocol       = "LSST_KAFKA_SECURITY_PROTOCOL"
	EnvMechanism      = "LSST_KAFKA_SECURITY_MECHANISM"
	EnvMaxHistoryRead = "LSST_MAX_HISTORY_READ"
	EnvTLSCA          = "LSST_KAFKA_TLS_CA_FILE"
	EnvTLSCert        = "LSST_KAFKA_TLS_CERT_FILE"
	EnvTLSKey         = "LSST_KAFKA_TLS_KEY_FILE"
	EnvIdempotent     = "LSST_KAFKA_PRODUCER_IDEMPOTENT"
	// EnvUnboundedStrings (our addition: ts_salobj has no bounds to lift)
	// sets Config.UnboundedStrings.
	EnvUnboundedStrings = "LSST_UNBOUNDED_STRINGS"
	DefaultSubname      = "sal"
	DefaultMaxHistory   = 500
	DefaultQueueLen     = 100
	DefaultRegistryURL  = "http://schema-registry:8081"
	// DefaultRegistryTimeout bounds each schema registry request.
	// Requests made with a timeout of 0 use the registry client's own
	// default, which is the same 10 s.
	DefaultRegistryTimeout = 10 * time.Second
)

// ErrConfig is matched by every configuration error.
var ErrConfig = errors.New("bad configuration")

// Config says how a Domain reaches Kafka and the registry.
type Config struct {
	// Brokers are the bootstrap addresses (LSST_KAFKA_BROKER_ADDR, comma separated).
	Brokers []string
	// RegistryURL is the schema registry base URL (LSST_SCHEMA_REGISTRY_URL).
	RegistryURL string
	// RegistryTimeout bounds each request to the registry (default
	// DefaultRegistryTimeout, 10 s); the caller's ctx bounds it too. A
	// registry that accepts connections but never answers then fails the
	// Start of a Remote, Controller or CSC with an error naming its URL.
	RegistryTimeout time.Duration
	// Subname is the second part of every topic name (LSST_TOPIC_SUBNAME).
	// It is required on a broker, as ts_salobj requires it (so that a
	// forgotten variable cannot put a program on the production namespace
	// "sal"); only the in-process bus (Embedded) defaults to "sal".
	Subname string
	// Replication of created topics (LSST_KAFKA_REPLICATION_FACTOR, default 1).
	Replication int16
	// Acks is "0", "1" (default, as the reference) or "all" (LSST_KAFKA_PRODUCER_WAIT_ACKS).
	Acks string
	// Idempotent turns on the idempotent producer (needs Acks "all").
	Idempotent bool
	// UnboundedStrings lets writers send strings longer than their
	// IDL_Size (LSST_UNBOUNDED_STRINGS=true), as ts_salobj does: it does
	// not bound strings over Kafka, so a Remote commanding Python CSCs can
	// then send what a Python Remote can. By default Write refuses them
	// (validate.ErrStringLength), the bound being part of the interface.
	// Readers deliver such records either way, counting them in
	// ReaderStats.Violations.
	UnboundedStrings bool
	// Protocol is PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL.
	Protocol string
	// Mechanism is the SASL mechanism (default SCRAM-SHA-512 with SASL).
	Mechanism string
	User      string
	Password  string
	// TLS is used with SSL and SASL_SSL; nil means system roots.
	TLS *tls.Config
	// MaxHistoryRead is how many records back an indexed component's event
	// readers look for history (LSST_MAX_HISTORY_READ, default 500).
	MaxHistoryRead int
	// Definitions of the components; default: FromEnv (TS_XML_DIR or the embedded example).
	Definitions *salxml.Definitions
	// Logger; default slog.Default().
	Logger *slog.Logger
	// Metrics receives measurements (see Metrics); nil turns them off.
	Metrics Metrics
	// Embedded marks the in-process broker: topics are created with small
	// segments, which that broker needs to avoid stalls, and the clients
	// push no KIP-714 client metrics (nobody collects them there).
	Embedded bool
	// HistoryReadConfig is the path of a YAML mapping of component name to
	// history depth (LSST_HISTORY_READ_CONFIG), as ts_salobj 8.2 reads it:
	// for an indexed component that the file names, it overrides
	// MaxHistoryRead. The file is read at each Instance start, and one
	// that does not exist is no error (ts_salobj's behaviour).
	HistoryReadConfig string
	// KafkaClient, KafkaProducer and KafkaConsumer are librdkafka
	// properties for every Kafka client, the producer and the consumers,
	// as ts_salobj 8.2 reads them from the YAML files named by
	// LSST_KAFKA_BROKER_CLIENT_CONFIGURATION, _PRODUCER_CONFIGURATION and
	// _CONSUMER_CONFIGURATION (KafkaClient wins over the other two). Only
	// properties with a franz-go equivalent are accepted (the README lists
	// them); any other is an error naming it. The properties that are
	// fields of Config (bootstrap.servers, security.protocol, sasl.*,
	// ssl.*.location, ssl.endpoint.identification.algorithm, acks,
	// enable.idempotence) are read from the files into those fields by
	// ConfigFromEnv; in code, set the fields.
	KafkaClient, KafkaProducer, KafkaConsumer map[string]any

	tlsFiles [3]string        // CA, certificate and key files TLS was loaded from
	rl       *ratelog.Limiter // the Domain's, for the Kafka clients' repeated warnings
}

// String describes the configuration without secrets.
func (c Config) String() string {
	return fmt.Sprintf("brokers=%s registry=%s subname=%s acks=%s protocol=%s user=%q", strings.Join(c.Brokers, ","), c.RegistryURL, c.Subname, c.Acks, c.Protocol, c.User)
}

// check fills defaults and rejects what cannot work.
func (c *Config) check() error {
	if len(c.Brokers) == 0 {
		return fmt.Errorf("topics: %w: no broker address (set %s)", ErrConfig, EnvBroker)
	}
	for _, b := range c.Brokers {
		if !validBroker(b) {
			return fmt.Errorf("topics: %w: broker address %q is not host:port", ErrConfig, b)
		}
	}
	if c.RegistryURL == "" {
		c.RegistryURL = DefaultRegistryURL
	}
	switch {
	case c.RegistryTimeout < 0:
		return fmt.Errorf("topics: %w: registry timeout %s: want a positive duration", ErrConfig, c.RegistryTimeout)
	case c.RegistryTimeout == 0:
		c.RegistryTimeout = DefaultRegistryTimeout
	}
	if c.Subname == "" {
		if !c.Embedded {
			// ts_salobj's SalInfo raises RuntimeError with these words.
			return fmt.Errorf("topics: %w: You must define environment variable %s (a broker is configured: only the in-process bus has a default subname, %q)", ErrConfig, EnvSubname, DefaultSubname)
		}
		c.Subname = DefaultSubname
	}
	if !validSubname(c.Subname) {
		return fmt.Errorf("topics: %w: topic subname %q may hold only letters, digits, '_' and '-'", ErrConfig, c.Subname)
	}
	if c.Replication == 0 {
		c.Replication = 1
	}
	if c.Acks == "" {
		c.Acks = "1"
	}
	acks, ok := parseAcks(c.Acks)
	if !ok {
		return fmt.Errorf("topics: %w: unknown acks value %q (want 0, 1, all or -1)", ErrConfig, c.Acks)
	}
	c.Acks = acks
	if c.Idempotent && c.Acks != "all" {
		return fmt.Errorf("topics: %w: the idempotent producer needs acks=all, not %s", ErrConfig, c.Acks)
	}
	if c.MaxHistoryRead == 0 {
		c.MaxHistoryRead = DefaultMaxHistory
	}
	switch strings.ToUpper(c.Protocol) {
	case "", "PLAINTEXT":
		c.Protocol = "PLAINTEXT"
		c.Mechanism = ""
	case "SSL":
		c.Mechanism = ""
		if c.TLS == nil {
			c.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
		}
	case "SASL_PLAINTEXT", "SASL_SSL":
		if c.Mechanism == "" {
			c.Mechanism = "SCRAM-SHA-512"
		}
		if c.User == "" || c.Password == "" {
			return fmt.Errorf("topics: %w: %s needs a user name and a password", ErrConfig, c.Protocol)
		}
		if strings.ToUpper(c.Protocol) == "SASL_SSL" && c.TLS == nil {
			c.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		if strings.ToUpper(c.Protocol) == "SASL_PLAINTEXT" {
			c.TLS = nil
		}
	default:
		return fmt.Errorf("topics: %w: unknown security protocol %q (want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)", ErrConfig, c.Protocol)
	}
	c.Protocol = strings.ToUpper(c.Protocol)
	for _, p := range []struct {
		name string
		role kafka.Role
		m    map[string]any
	}{{"KafkaClient", kafka.RoleClient, c.KafkaClient}, {"KafkaProducer", kafka.RoleProducer, c.KafkaProducer}, {"KafkaConsumer", kafka.RoleConsumer, c.KafkaConsumer}} {
		for k := range p.m {
			if contains(connectionKeys, k) || contains(producerKeys, k) {
				return fmt.Errorf("topics: %w: Config.%s: %s is a setting of Config's own: set its field", ErrConfig, p.name, k)
			}
		}
		if err := kafka.Check(p.role, p.m); err != nil {
			return fmt.Errorf("topics: %w: Config.%s: %s", ErrConfig, p.name, strings.TrimPrefix(strings.TrimPrefix(err.Error(), "kafka: "), kafka.ErrBadConfig.Error()+": "))
		}
	}
	if c.HistoryReadConfig != "" {
		if _, _, err := readHistoryConfig(c.HistoryReadConfig); err != nil {
			return err
		}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Definitions == nil {
		d, err := salxml.FromEnv()
		if err != nil {
			return err
		}
		c.Definitions = d
	}
	return nil
}

func (c *Config) kafka() kafka.Config {
	k := kafka.Config{
		Brokers: c.Brokers, TLS: c.TLS, Mechanism: c.Mechanism, User: c.User, Password: c.Password,
		Acks: c.Acks, Idempotent: c.Idempotent, ClientID: "salgo", Logger: c.Logger,
		ClientProps: c.KafkaClient, ProducerProps: c.KafkaProducer, ConsumerProps: c.KafkaConsumer,
		// Nobody collects client metrics from the in-process broker.
		NoClientMetrics: c.Embedded,
	}
	if c.rl != nil {
		k.Limit = c.rl.Log
	}
	return k
}

// writeRules are the validate options of writers.
func (c *Config) writeRules() []validate.Option {
	if c.UnboundedStrings {
		return []validate.Option{validate.Unbounded()}
	}
	return nil
}

// kafkaFor is kafka() with the Metrics' hooks for a client with the given
// role (see Metrics.KafkaHooks).
func (c *Config) kafkaFor(role string) kafka.Config {
	k := c.kafka()
	if c.Metrics != nil {
		k.Hooks = c.Metrics.KafkaHooks(role)
	}
	return k
}
