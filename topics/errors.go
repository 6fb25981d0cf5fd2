package topics

import (
	"errors"
	"time"
)

var (
	// ErrClosed is returned by calls on a closed Domain, Instance, Reader
	// or Writer, and (re-exported as sal.ErrClosed) by every closed object
	// of the SDK: Remotes, their commands, Controllers and CSCs.
	ErrClosed = errors.New("sal: closed")
	// ErrNotStarted is returned by a write before its Instance started.
	ErrNotStarted = errors.New("topics: instance not started")
	// ErrStarted is returned when adding a reader to a started Instance.
	ErrStarted = errors.New("topics: instance already started")
	// ErrCallbackSet is returned by Next and Flush while a callback is set.
	ErrCallbackSet = errors.New("topics: a callback is set on this reader")
	// ErrWrongComponent is returned for a topic of another component.
	ErrWrongComponent = errors.New("topics: topic belongs to another component")
	// ErrWrongIndex: a record given to a writer holds a salIndex other
	// than the writer's SAL index (the writer stamps its own).
	ErrWrongIndex = errors.New("topics: salIndex is not the writer's")
)

// LogInterval is how often at most a repeated problem of one kind is
// logged (the records in between are counted and the count logged with
// the next one).
const LogInterval = 10 * time.Second
