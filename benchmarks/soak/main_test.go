package main

import (
	"testing"

	"go.uber.org/goleak"
)

// The smoke run stops every goroutine it started.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
