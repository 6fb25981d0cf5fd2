package topics

import "github.com/lsst-sal/salgo/internal/plumb"

// The protocol's plumbing, for the remote and controller roles only (see
// package internal/plumb).
func init() {
	plumb.WriteSeq = writeSeq
	plumb.WriteSeqAsync = writeSeqAsync
	plumb.SetInline = setInline
	plumb.NewOwnReader = newOwnReader
	plumb.OnFlush = onFlush
	plumb.OnClose = onClose
}
