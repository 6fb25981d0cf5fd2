// Package leaktest holds the goroutine-leak check every test package of
// the module runs after its tests (go.uber.org/goleak in TestMain): one
// list of the goroutines that may outlive a test, so that no package
// quietly ignores more.
//
// The list is empty: every client, consumer, timer and keep-alive
// connection the SDK starts is stopped by a Close, and goleak retries for
// a while, so goroutines that wind down just after Close returns are not
// reported. In particular nothing blocked on a socket read
// (internal/poll.runtime_pollWait, the top frame of every idle network
// reader) is ignored: that is where a leaked Kafka client or HTTP
// connection waits.
//
// A Baseline (one case of many) differs in one way: it does not count the
// embedded broker's side of a connection a client has closed. The broker
// outlives the case and answers a connection's requests in order, so if a
// client hung up with a request queued behind a long-poll fetch, the
// broker's reader and writer for that connection run on until the fetch's
// MaxWait ends (franz-go's default is 5 s, well past goleak's retries).
// They are the broker's goroutines, ended by its Close at the latest, and
// the package's own check (VerifyTestMain, after every broker is closed)
// still counts them; the client's side (its read loops wait on a socket)
// is counted by both.
package leaktest

import (
	"testing"

	"go.uber.org/goleak"
)

// Options are the goleak options of every test package: none, see the
// package doc.
func Options() []goleak.Option { return nil }

// VerifyTestMain runs the tests, then fails the run if goroutines leaked.
func VerifyTestMain(m *testing.M) { goleak.VerifyTestMain(m, Options()...) }

// Baseline is the set of goroutines running when it was taken (Begin), for
// a test that checks one case of many left none behind.
type Baseline struct{ opt goleak.Option }

// Begin records the goroutines running now.
func Begin() Baseline { return Baseline{goleak.IgnoreCurrent()} }

// brokerConnection is the embedded broker's reader and writer of one
// client connection (see the package doc).
var brokerConnection = []string{
	"github.com/twmb/franz-go/pkg/kfake.(*clientConn).read",
	"github.com/twmb/franz-go/pkg/kfake.(*clientConn).write",
}

// Verify fails t if a goroutine started since Begin is still running
// (after goleak's retries), other than the embedded broker's side of a
// closed connection.
func (b Baseline) Verify(t testing.TB) {
	t.Helper()
	opts := append(Options(), b.opt)
	for _, f := range brokerConnection {
		opts = append(opts, goleak.IgnoreAnyFunction(f))
	}
	goleak.VerifyNone(t, opts...)
}
