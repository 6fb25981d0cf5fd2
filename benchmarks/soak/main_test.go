package main

import (
	"testing"

	"github.com/lsst-sal/salgo/internal/leaktest"
)

// The smoke run stops every goroutine it started.
func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }
