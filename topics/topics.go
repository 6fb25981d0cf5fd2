// Package topics is the public face of the SDK's runtime: a Domain (one
// process's connection to Kafka and the schema registry), component
// Instances, topic Readers and Writers, their statistics, the bus
// configuration and the ack codes. Most programs use these types through
// package sal, which re-exports them; topics is for programs that work
// below Remotes and Controllers (a recorder, a bridge, a tool that reads
// topics by name).
//
// Records are map[string]any with the canonical Go type of each SAL type
// (see package validate). The wire format follows ts_salobj 8 byte for
// byte: topic names, subjects, keys, Confluent framing, private fields.
//
// # Lifecycle
//
// Create readers and writers on an Instance, then Start it: Start creates
// missing topics, registers schemas, seeks each reader to its history and
// returns once history is caught up. Close stops every goroutine the
// Instance owns and is safe to call twice; after Close, calls return
// ErrClosed.
//
// The protocol's plumbing (explicit sequence numbers, ack records,
// readers called on the poll goroutine, consumers of their own) is not
// part of this API: the Remote and Controller roles use it from the
// SDK's internal runtime, of which these types are aliases.
package topics

import (
	"context"
	"crypto/tls"
	"time"

	"github.com/lsst-sal/salgo/internal/bus"
)

// The runtime's types.
type (
	// Config says how a Domain reaches Kafka and the registry.
	Config = bus.Config
	// Domain is one process's connection to Kafka and the schema registry.
	Domain = bus.Domain
	// Instance is one component instance (name and SAL index) on the bus.
	Instance = bus.Instance
	// Reader reads one topic of one component instance.
	Reader = bus.Reader
	// ReaderOptions configure a Reader.
	ReaderOptions = bus.ReaderOptions
	// ReaderStats counts what happened to a reader's records.
	ReaderStats = bus.ReaderStats
	// Writer writes one topic of one component instance.
	Writer = bus.Writer
	// WriterStats counts a writer's records.
	WriterStats = bus.WriterStats
	// WriteResult says where a record landed.
	WriteResult = bus.WriteResult
	// SetWriteResult is what Writer.SetWrite did.
	SetWriteResult = bus.SetWriteResult
	// TapRecord is one record seen by Domain.Tap.
	TapRecord = bus.TapRecord
	// PartitionOffsets is the extent of one partition (Domain.Offsets).
	PartitionOffsets = bus.PartitionOffsets
	// Ack is one command acknowledgement.
	Ack = bus.Ack
	// AckCode is a command acknowledgement code.
	AckCode = bus.AckCode
	// Metrics receives the runtime's measurements (see sal/salprom).
	Metrics = bus.Metrics
	// Observer records one value of a distribution.
	Observer = bus.Observer
	// TopicInfo names one topic of one component instance.
	TopicInfo = bus.TopicInfo
	// TopicStats are the counters and gauges of one reader or writer.
	TopicStats = bus.TopicStats
)

// The ack codes of ts_salobj.
const (
	CmdAck        = bus.CmdAck
	CmdInProgress = bus.CmdInProgress
	CmdStalled    = bus.CmdStalled
	CmdComplete   = bus.CmdComplete
	CmdNoPerm     = bus.CmdNoPerm
	CmdNoAck      = bus.CmdNoAck
	CmdFailed     = bus.CmdFailed
	CmdAborted    = bus.CmdAborted
	CmdTimeout    = bus.CmdTimeout
)

// Environment variables read by ConfigFromEnv, and defaults.
const (
	EnvBroker         = bus.EnvBroker
	EnvRegistry       = bus.EnvRegistry
	EnvSubname        = bus.EnvSubname
	EnvReplication    = bus.EnvReplication
	EnvAcks           = bus.EnvAcks
	EnvUser           = bus.EnvUser
	EnvPassword       = bus.EnvPassword
	EnvProtocol       = bus.EnvProtocol
	EnvMechanism      = bus.EnvMechanism
	EnvMaxHistoryRead = bus.EnvMaxHistoryRead
	EnvTLSCA          = bus.EnvTLSCA
	EnvTLSCert        = bus.EnvTLSCert
	EnvTLSKey         = bus.EnvTLSKey
	EnvIdempotent     = bus.EnvIdempotent
	EnvHistoryConfig  = bus.EnvHistoryConfig
	EnvClientConfig   = bus.EnvClientConfig
	EnvProducerConfig = bus.EnvProducerConfig
	EnvConsumerConfig = bus.EnvConsumerConfig
	// EnvUnboundedStrings sets Config.UnboundedStrings (our addition).
	EnvUnboundedStrings = bus.EnvUnboundedStrings
	DefaultSubname      = bus.DefaultSubname
	DefaultMaxHistory   = bus.DefaultMaxHistory
	DefaultQueueLen     = bus.DefaultQueueLen
	DefaultRegistryURL  = bus.DefaultRegistryURL
	// DefaultRegistryTimeout bounds each schema registry request (Config.RegistryTimeout).
	DefaultRegistryTimeout = bus.DefaultRegistryTimeout
	// DefaultConnectTimeout bounds NewDomain's broker check when ctx has no deadline.
	DefaultConnectTimeout = bus.DefaultConnectTimeout
	// LogInterval is how often at most a repeated problem of one kind is logged.
	LogInterval = bus.LogInterval
)

// Errors, for errors.Is.
var (
	// ErrClosed is returned by every closed object of the SDK (sal.ErrClosed).
	ErrClosed = bus.ErrClosed
	// ErrNotStarted is returned by a write before its Instance started.
	ErrNotStarted = bus.ErrNotStarted
	// ErrStarted is returned when adding a reader to a started Instance.
	ErrStarted = bus.ErrStarted
	// ErrCallbackSet is returned by Next and Flush while a callback is set.
	ErrCallbackSet = bus.ErrCallbackSet
	// ErrWrongComponent is returned for a topic of another component.
	ErrWrongComponent = bus.ErrWrongComponent
	// ErrWrongIndex: a record given to a writer (or a command's parameters)
	// holds a salIndex other than the writer's SAL index.
	ErrWrongIndex = bus.ErrWrongIndex
	// ErrConfig is matched by every configuration error.
	ErrConfig = bus.ErrConfig
)

// NewDomain connects to the brokers of cfg and checks that one answers
// within ctx (DefaultConnectTimeout when ctx has no deadline).
func NewDomain(ctx context.Context, cfg Config) (*Domain, error) { return bus.NewDomain(ctx, cfg) }

// ConfigFromEnv reads the LSST_* environment variables.
func ConfigFromEnv() (Config, error) { return bus.ConfigFromEnv() }

// LoadTLS builds a TLS configuration from PEM files: a CA bundle (may be
// empty: system roots) and an optional client certificate and key.
func LoadTLS(caFile, certFile, keyFile string) (*tls.Config, error) {
	return bus.LoadTLS(caFile, certFile, keyFile)
}

// AckFromRecord reads an ack topic record.
func AckFromRecord(rec map[string]any) Ack { return *bus.AckFromRecord(rec) }

// TAI returns the current time as TAI unix seconds, as private_sndStamp.
func TAI() float64 { return bus.TAI() }

// UTCToTAI converts a time to TAI unix seconds.
func UTCToTAI(t time.Time) float64 { return bus.UTCToTAI(t) }

// TAIToUTC converts TAI unix seconds to UTC unix seconds.
func TAIToUTC(tai float64) float64 { return bus.TAIToUTC(tai) }
