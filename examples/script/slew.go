package main

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"

	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
)

//go:embed schema.yaml
var schema []byte

// TestIndex is the SAL index of the Test CSC the script commands.
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
		test *sal.Remote
	)
	return sal.ScriptSpec{
		Name:        "SlewTest",
		Description: "Steps the Test CSC through setScalars commands",
		Help: "Brings Test:1 to ENABLED (if `enable`), then sends `steps` setScalars commands " +
			"(int0 = 1, 2, ...), each followed by Test's wait command of `wait` seconds. " +
			"Checkpoints `step 1`, `step 2`, ... come before the steps.",
		Schema: schema,
		// The Remote is made before the script starts, so that
		// description.remotes lists it ("Test:1").
		Setup: func(ctx context.Context, s *sal.Script) (err error) {
			test, err = s.NewRemote(ctx, "Test", TestIndex, remote.WithInclude("summaryState", "heartbeat"))
			return err
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
				if _, err := sal.SetSummaryState(ctx, test, sal.Enabled, ""); err != nil {
					return err
				}
			}
			for i := 1; i <= cfg.Steps; i++ {
				if err := s.Checkpoint(ctx, "step "+strconv.Itoa(i)); err != nil {
					return err // paused there and stopped, or a stop checkpoint
				}
				s.Logger().Info(fmt.Sprintf("step %d of %d", i, cfg.Steps))
				if _, err := test.Command(ctx, "setScalars", map[string]any{"int0": i, "string0": fmt.Sprintf("step %d of %d", i, cfg.Steps)}); err != nil {
					return err
				}
				if cfg.Wait > 0 {
					if _, err := test.Command(ctx, "wait", map[string]any{"duration": cfg.Wait}); err != nil {
						return err
					}
				}
			}
			return nil
		},
		Cleanup: func(ctx context.Context, s *sal.Script) error {
			s.Logger().Info("Cleanup: leaving Test:" + strconv.Itoa(TestIndex) + " as it is")
			return nil
		},
	}
}
