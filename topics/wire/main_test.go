package wire_test

import (
	"testing"

	"github.com/lsst-sal/salgo/internal/leaktest"
)

// TestMain fails the package's tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	leaktest.VerifyTestMain(m)
}
