package lfa_test

import (
	"testing"

	"github.com/lsst-sal/salgo/internal/s3"
	"github.com/lsst-sal/salgo/lfa"
)

// TestDefaults_AreS3s: the defaults Open documents are the ones the S3
// client applies (Open passes 0 for an option not given).
func TestDefaults_AreS3s(t *testing.T) {
	if lfa.DefaultPartSize != s3.DefaultPartSize || lfa.MinPartSize != s3.MinPartSize ||
		lfa.DefaultConcurrency != s3.DefaultConcurrency || lfa.MaxAttempts != s3.DefaultMaxAttempts {
		t.Errorf("lfa's defaults %d %d %d %d, internal/s3's %d %d %d %d",
			lfa.DefaultPartSize, lfa.MinPartSize, lfa.DefaultConcurrency, lfa.MaxAttempts,
			s3.DefaultPartSize, s3.MinPartSize, s3.DefaultConcurrency, s3.DefaultMaxAttempts)
	}
}
