package sal

import (
	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/remote"
)

// The options of the roles are declared, with their defaults, in the
// packages of the roles: remote.WithInclude, remote.WithReadOnly, ...;
// controller.WithAllowMissing, controller.WithInitialState, ....
type (
	// A RemoteOption changes a Remote's setting (NewRemote, Bus.NewRemote).
	// Documented in package remote: go doc github.com/lsst-sal/salgo/remote.Option
	RemoteOption = remote.Option
	// A ControllerOption changes a Controller's setting (NewController,
	// Bus.NewController), or that of a CSC's controller.
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.Option
	ControllerOption = controller.Option
	// A CSCOption changes a CSC's setting (NewCSC, Bus.NewCSC); every
	// ControllerOption is one too.
	// Documented in package controller: go doc github.com/lsst-sal/salgo/controller.CSCOption
	CSCOption = controller.CSCOption
	// A CommandOption changes one command's setting (Remote.Command,
	// Remote.StartCommand): remote.WithTimeout, remote.WithNextAck.
	// Documented in package remote: go doc github.com/lsst-sal/salgo/remote.CommandOption
	CommandOption = remote.CommandOption
)
