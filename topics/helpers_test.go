package topics_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/internal/embedded"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// testConfig says what the tests run on: the real broker and registry named
// by LSST_KAFKA_BROKER_ADDR and LSST_SCHEMA_REGISTRY_URL when set, or the
// embedded ones. Each test gets its own topic subname.
func testConfig(t testing.TB, defs *salxml.Definitions) topics.Config {
	t.Helper()
	cfg, err := topics.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case len(cfg.Brokers) == 0:
		c, err := embedded.Start(embedded.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		cfg.Brokers = c.Brokers()
		cfg.RegistryURL = c.RegistryURL()
		cfg.Embedded = true
	case cfg.RegistryURL == "":
		// A real broker without a registry: borrow the embedded one's
		// registry (its broker stays idle).
		c, err := embedded.Start(embedded.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		cfg.RegistryURL = c.RegistryURL()
	}
	cfg.Subname = fmt.Sprintf("test_%s_%d", strings.ReplaceAll(strings.ReplaceAll(t.Name(), "/", "_"), "#", ""), time.Now().UnixNano()%1e9)
	cfg.Definitions = defs
	cfg.Logger = testLogger(t)
	return cfg
}

func testLogger(t testing.TB) *slog.Logger {
	if os.Getenv("SALGO_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func newDomain(t testing.TB, defs *salxml.Definitions) *topics.Domain {
	t.Helper()
	if defs == nil {
		defs = salxml.Embedded()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := topics.NewDomain(ctx, testConfig(t, defs))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func example(t testing.TB, d *topics.Domain) *salxml.Component {
	t.Helper()
	c, err := d.Component("Example")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// randomRecord makes a record of valid random values for the user fields.
func randomRecord(tp *salxml.Topic, rng *rand.Rand) map[string]any {
	rec := validate.For(tp).Random(rng)
	for _, f := range tp.Fields {
		if f.Private {
			delete(rec, f.Name)
		}
	}
	return rec
}
