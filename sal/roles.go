package sal

import (
	"context"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/topics"
)

// Names re-exported so that most programs import only sal.
type (
	Remote     = remote.Remote
	Controller = controller.Controller
	CSC        = controller.CSC
	Command    = controller.Command
	Ack        = topics.Ack
	AckCode    = topics.AckCode
	State      = controller.State
	Reader     = topics.Reader
	Writer     = topics.Writer
	// Metrics and what it sees: see WithMetrics and sal/salprom.
	Metrics    = topics.Metrics
	Observer   = topics.Observer
	TopicInfo  = topics.TopicInfo
	TopicStats = topics.TopicStats
)

// The summary states and ack codes.
const (
	Disabled = controller.Disabled
	Enabled  = controller.Enabled
	Fault    = controller.Fault
	Offline  = controller.Offline
	Standby  = controller.Standby

	CmdAck        = topics.CmdAck
	CmdInProgress = topics.CmdInProgress
	CmdComplete   = topics.CmdComplete
	CmdFailed     = topics.CmdFailed
	CmdAborted    = topics.CmdAborted
	CmdTimeout    = topics.CmdTimeout
	CmdNoAck      = topics.CmdNoAck
)

// Errors re-exported for errors.Is.
var (
	ErrCommandFailed = remote.ErrCommandFailed
	ErrTimeout       = remote.ErrTimeout
	ErrClosed        = topics.ErrClosed
)

// DefaultStartTimeout bounds NewRemote and NewCSC, which take no context.
const DefaultStartTimeout = 2 * time.Minute

// NewRemote makes and starts a Remote of the named component and SAL index
// on the process-wide Bus (see Default), returning once its event history
// is caught up. Close it when done; sal.Close closes the Bus.
func NewRemote(name string, index int, opts ...remote.Option) (*Remote, error) {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultStartTimeout)
	defer cancel()
	return NewRemoteContext(ctx, name, index, opts...)
}

// NewRemoteContext is NewRemote bounded by ctx.
func NewRemoteContext(ctx context.Context, name string, index int, opts ...remote.Option) (*Remote, error) {
	b, err := Default(ctx)
	if err != nil {
		return nil, err
	}
	return b.NewRemote(ctx, name, index, opts...)
}

// NewRemote makes and starts a Remote on this Bus.
func (b *Bus) NewRemote(ctx context.Context, name string, index int, opts ...remote.Option) (*Remote, error) {
	r, err := remote.New(b.Domain, name, index, opts...)
	if err != nil {
		return nil, err
	}
	if err := r.Start(ctx); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// NewController makes a Controller on the process-wide Bus; add handlers,
// then Start it.
func NewController(name string, index int, opts ...controller.Option) (*Controller, error) {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultStartTimeout)
	defer cancel()
	b, err := Default(ctx)
	if err != nil {
		return nil, err
	}
	return b.NewController(name, index, opts...)
}

// NewController makes a Controller on this Bus.
func (b *Bus) NewController(name string, index int, opts ...controller.Option) (*Controller, error) {
	return controller.New(b.Domain, name, index, opts...)
}

// NewCSC makes a CSC on the process-wide Bus; add handlers for its own
// commands, then Start it.
func NewCSC(name string, index int, opts ...controller.CSCOption) (*CSC, error) {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultStartTimeout)
	defer cancel()
	b, err := Default(ctx)
	if err != nil {
		return nil, err
	}
	return b.NewCSC(name, index, opts...)
}

// NewCSC makes a CSC on this Bus.
func (b *Bus) NewCSC(name string, index int, opts ...controller.CSCOption) (*CSC, error) {
	return controller.NewCSC(b.Domain, name, index, opts...)
}
