package salgen_test

import (
	"testing"

	"github.com/lsst-sal/salgo/internal/leaktest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }
