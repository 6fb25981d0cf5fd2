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

// Verify fails t if a goroutine started since Begin is still running
// (after goleak's retries).
func (b Baseline) Verify(t testing.TB) {
	t.Helper()
	goleak.VerifyNone(t, append(Options(), b.opt)...)
}
