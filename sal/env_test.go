package sal_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// unsetenv unsets k for this test.
func unsetenv(t *testing.T, k string) {
	t.Setenv(k, "")
	os.Unsetenv(k)
}

// TestConnect_SubnameRequired: with a broker configured and no
// LSST_TOPIC_SUBNAME, Connect fails at once with ts_salobj's words (a
// forgotten variable must not put a program on the production namespace
// "sal"); the in-process bus keeps "sal" as its default.
func TestConnect_SubnameRequired(t *testing.T) {
	unsetenv(t, topics.EnvSubname)
	unsetenv(t, topics.EnvBroker)
	unsetenv(t, topics.EnvRegistry)

	b, err := sal.Connect(ctxT(t), sal.WithDefinitions(salxml.Embedded()), sal.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Config().Subname; got != "sal" || !b.Embedded() {
		t.Errorf("the in-process bus: subname %q, embedded %v", got, b.Embedded())
	}
	b.Close()

	t.Setenv(topics.EnvBroker, "127.0.0.1:1") // never dialled
	for _, sub := range []string{"", "unset"} {
		if sub == "unset" {
			unsetenv(t, topics.EnvSubname)
		} else {
			t.Setenv(topics.EnvSubname, sub)
		}
		b, err := sal.Connect(context.Background(), sal.WithDefinitions(salxml.Embedded()), sal.WithLogger(quiet))
		if err == nil {
			b.Close()
			t.Fatalf("LSST_TOPIC_SUBNAME %s: Connect accepted a broker without a subname", sub)
		}
		const want = `topics: bad configuration: You must define environment variable LSST_TOPIC_SUBNAME (a broker is configured: only the in-process bus has a default subname, "sal")`
		if err.Error() != want || !errors.Is(err, topics.ErrConfig) {
			t.Errorf("LSST_TOPIC_SUBNAME %s:\n got %v\nwant %s", sub, err, want)
		}
	}
}
