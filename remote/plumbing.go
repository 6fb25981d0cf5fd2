package remote

import (
	"context"

	"github.com/lsst-sal/salgo/internal/plumb"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// The protocol's plumbing of package topics (see internal/plumb).
var (
	writeSeq      = plumb.WriteSeq.(func(context.Context, *topics.Writer, map[string]any, int32) (topics.WriteResult, error))
	writeSeqAsync = plumb.WriteSeqAsync.(func(context.Context, *topics.Writer, map[string]any, int32, func(topics.WriteResult, error)) error)
	setInline     = plumb.SetInline.(func(*topics.Reader, func(map[string]any)) error)
	newOwnReader  = plumb.NewOwnReader.(func(*topics.Instance, *salxml.Topic, topics.ReaderOptions) (*topics.Reader, error))
	onClose       = plumb.OnClose.(func(*topics.Domain, int, func()) (func(), error))
)
