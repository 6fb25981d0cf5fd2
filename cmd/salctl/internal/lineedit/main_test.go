package lineedit

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if a goroutine outlives the tests, as every test
// package of the SDK does (its internal/leaktest, which ignores none).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
