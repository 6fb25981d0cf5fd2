package main

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"

	"github.com/lsst-sal/salgo/examples/gen/example"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
)

//go:embed schema.yaml
var schema []byte

// TestIndex is the SAL index of the Example CSC the script commands.
const TestIndex = 1

// Config is the script's configuration (schema.yaml, defaults filled).
type Config struct {
	Steps  int     `json:"steps"`
	Wait   float64 `json:"wait"`
	Enable bool    `json:"enable"`
}

// Spec is the SlewTest script, a sal.ScriptSpec: what RunScript runs and
// the tests drive.
func Spec() sal.ScriptSpec {
	var (
		cfg  Config
		test *example.Remote
	)
	return sal.ScriptSpec{
		Name:        "SlewTest",
		Description: "Steps the Example CSC through setScalars commands",
		Help: "Brings Example:1 to ENABLED (if `enable`), then sends `steps` setScalars commands " +
			"(int0 = 1, 2, ...), each followed by Example's wait command of `wait` seconds. " +
			"Checkpoints `step 1`, `step 2`, ... come before the steps.",
		Schema: schema,
		// The Remote is made before the script starts, so that
		// description.remotes lists it ("Example:1"). It is the typed
		// Remote of package examples/gen/example, which carries Example's
		// definition: the script needs no TS_XML_DIR. It commands as
		// "Script:<index>" and is started here, as Script.NewRemote does.
		Setup: func(ctx context.Context, s *sal.Script) (err error) {
			test, err = example.NewRemote(s.Domain(), TestIndex,
				remote.WithIdentity(s.Identity()), remote.WithInclude("summaryState", "heartbeat"))
			if err != nil {
				return err
			}
			if err := test.Start(ctx); err != nil {
				test.Close()
				return err
			}
			return nil
		},
		Configure: func(ctx context.Context, s *sal.Script, c *sal.ScriptConfiguration) error {
			if err := c.Decode(&cfg); err != nil {
				return err
			}
			s.Logger().Info(fmt.Sprintf("steps=%d, wait=%g, enable=%v", cfg.Steps, cfg.Wait, cfg.Enable))
			return nil
		},
		SetMetadata: func(s *sal.Script, md *sal.ScriptMetadata) {
			md.Duration = float64(cfg.Steps) * cfg.Wait
			md.TotalCheckpoints = int32(cfg.Steps)
		},
		Run: func(ctx context.Context, s *sal.Script) error {
			if cfg.Enable {
				if _, err := sal.SetSummaryState(ctx, test.Remote, sal.Enabled, ""); err != nil {
					return err
				}
			}
			for i := 1; i <= cfg.Steps; i++ {
				if err := s.Checkpoint(ctx, "step "+strconv.Itoa(i)); err != nil {
					return err // paused there and stopped, or a stop checkpoint
				}
				s.Logger().Info(fmt.Sprintf("step %d of %d", i, cfg.Steps))
				step := &example.CmdSetScalars{Int0: int32(i), String0: fmt.Sprintf("step %d of %d", i, cfg.Steps)}
				if _, err := test.CmdSetScalars(ctx, step); err != nil {
					return err
				}
				if cfg.Wait > 0 {
					if _, err := test.CmdWait(ctx, &example.CmdWait{Duration: cfg.Wait}); err != nil {
						return err
					}
				}
			}
			return nil
		},
		Cleanup: func(ctx context.Context, s *sal.Script) error {
			s.Logger().Info("Cleanup: leaving Example:" + strconv.Itoa(TestIndex) + " as it is")
			return nil
		},
	}
}
