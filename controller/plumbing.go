package controller

import (
	"context"

	"github.com/lsst-sal/salgo/internal/plumb"
	"github.com/lsst-sal/salgo/topics"
)

// The protocol's plumbing of package topics (see internal/plumb).
var (
	writeSeq      = plumb.WriteSeq.(func(context.Context, *topics.Writer, map[string]any, int32) (topics.WriteResult, error))
	writeSeqAsync = plumb.WriteSeqAsync.(func(context.Context, *topics.Writer, map[string]any, int32, func(topics.WriteResult, error)) error)
	setInline     = plumb.SetInline.(func(*topics.Reader, func(map[string]any)) error)
	onFlush       = plumb.OnFlush.(func(*topics.Domain, func(context.Context) error) func())
	onClose       = plumb.OnClose.(func(*topics.Domain, int, func()) (func(), error))
)
