// Package plumb hands the protocol's plumbing of package topics to the
// remote and controller roles without making it public API: explicit
// sequence numbers (commands and acks), readers whose records are handed
// over on the poll goroutine, readers with a Kafka consumer of their own,
// and the flush of what a role has queued.
//
// Package topics sets each variable when it is initialised, so a package
// that imports topics finds them set before its own variables are
// initialised. Each holds a func of the signature in its comment; the
// roles assert it once, at their initialisation, so a mismatch fails every
// program and test at start.
package plumb

// The functions of package topics, typed as their comments say.
var (
	// WriteSeq: func(ctx context.Context, w *topics.Writer, rec map[string]any, seq int32) (topics.WriteResult, error)
	// is w.Write with an explicit private_seqNum.
	WriteSeq any
	// WriteSeqAsync: func(ctx context.Context, w *topics.Writer, rec map[string]any, seq int32, done func(topics.WriteResult, error)) error
	// is w.WriteAsync with an explicit private_seqNum.
	WriteSeqAsync any
	// SetInline: func(r *topics.Reader, fn func(map[string]any)) error
	// delivers every record of r to fn on its Instance's poll goroutine.
	SetInline any
	// NewOwnReader: func(in *topics.Instance, t *xml.Topic, o topics.ReaderOptions) (*topics.Reader, error)
	// adds a reader with a Kafka consumer of its own.
	NewOwnReader any
	// OnFlush: func(d *topics.Domain, fn func(context.Context) error) (unregister func())
	// makes d's Flush also wait for fn.
	OnFlush any
	// OnClose: func(d *topics.Domain, rank int, fn func()) (unregister func(), err error)
	// registers fn, the Close of a role made on d, to be called by d's Close.
	OnClose any
)

// The ranks of OnClose: Domain.Close closes what was registered rank by
// rank, lowest first, and within a rank the newest first.
const (
	// RankRunner is a CSC or a SAL script: closed first, while the
	// Controllers and Remotes it uses still work (its close hook may
	// command or write).
	RankRunner = iota
	// RankController is a Controller.
	RankController
	// RankRemote is a Remote.
	RankRemote
)
