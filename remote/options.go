package remote

import "github.com/lsst-sal/salgo/topics"

// An Option changes one of a Remote's settings from its default (New,
// sal.NewRemote).
type Option func(*config)

// WithIdentity sets the private_identity a Remote writes in its commands
// (default: the bus's identity, user@fqdn, or the identity of a CSC made
// on the bus).
func WithIdentity(id string) Option { return func(c *config) { c.Identity = id } }

// WithQueueLen sets the queue length of a Remote's event and telemetry
// readers (default topics.DefaultQueueLen, 100; minimum 10). When a queue
// is full, the oldest record is dropped and counted.
func WithQueueLen(n int) Option { return func(c *config) { c.QueueLen = n } }

// WithReadOnly makes a Remote that sends no commands and reads no acks
// (default: it can command).
func WithReadOnly() Option { return func(c *config) { c.ReadOnly = true } }

// WithInclude makes a Remote read only the named events and telemetry
// topics (bare, SAL or attribute names; a bare name that is both an event
// and a telemetry topic names both; default: all of them). Commands are
// not filtered. It cannot be combined with WithExclude.
func WithInclude(names ...string) Option {
	return func(c *config) { c.Include = append(c.Include, names...) }
}

// WithExclude makes a Remote read every event and telemetry topic except
// the named ones (default: none excluded).
func WithExclude(names ...string) Option {
	return func(c *config) { c.Exclude = append(c.Exclude, names...) }
}

// WithEventHistory says whether a Remote's event readers first deliver
// the newest sample written before the Remote started (per SAL index):
// true by default, as the reference's evt_max_history=1; false reads only
// what is written afterwards.
func WithEventHistory(on bool) Option { return func(c *config) { c.NoEventHistory = !on } }

// WithKeepOutOfOrder makes a Remote deliver events and telemetry samples
// older than the last one seen of the same SAL index (default: dropped
// and counted, as the reference does).
func WithKeepOutOfOrder() Option { return func(c *config) { c.KeepOutOfOrder = true } }

// WithRecords makes the Remote's readers of these record types' topics
// decode typed records (see topics.ReaderOptions.Record): the Remotes of
// the packages cmd/salgen generates pass every record type of their
// component. Types of another component are ignored.
func WithRecords(types ...*topics.RecordType) Option {
	return func(c *config) {
		if c.Records == nil {
			c.Records = map[string]*topics.RecordType{}
		}
		for _, t := range types {
			c.Records[t.SALName] = t
		}
	}
}
