package sal_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"

	"github.com/lsst-sal/salgo/internal/testbus"
)

// TestNewRemote_SilentRegistry: sal.NewRemote on a broker whose schema
// registry accepts connections and never answers returns, within the
// registry's default timeout (10 s), an error that names the registry.
func TestNewRemote_SilentRegistry(t *testing.T) {
	// A broker: the in-process one of a Bus of our own, reached by address.
	broker, err := sal.Connect(ctxT(t), sal.WithEmbedded(), sal.WithDefinitions(salxml.Embedded()), sal.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	url := testbus.SilentServer(t)
	t.Setenv(topics.EnvBroker, strings.Join(broker.Config().Brokers, ","))
	t.Setenv(topics.EnvRegistry, url)
	t.Setenv(topics.EnvSubname, "silent")
	unsetenv(t, salxml.EnvDir)
	sal.Close() // the process-wide bus is made from this environment
	defer sal.Close()

	type result struct {
		r   *sal.Remote
		err error
	}
	ch := make(chan result, 1)
	go func() {
		r, err := sal.NewRemote("Example", 1)
		ch <- result{r, err}
	}()
	var res result
	select {
	case res = <-ch:
	case <-time.After(60 * time.Second): // a guard: sal.DefaultStartTimeout is 2 minutes
		t.Fatal("sal.NewRemote did not return within 60 s")
	}
	if res.err == nil {
		res.r.Close()
		t.Fatal("sal.NewRemote started with a registry that never answers")
	}
	if !strings.Contains(res.err.Error(), "registry "+url+": register ") || !strings.Contains(res.err.Error(), "no answer within 10s") {
		t.Errorf("the error does not name the registry and its timeout: %v", res.err)
	}
}

// TestWithRegistryTimeout: the option sets the limit of each request.
func TestWithRegistryTimeout(t *testing.T) {
	b, err := sal.Connect(ctxT(t), sal.WithEmbedded(), sal.WithDefinitions(salxml.Embedded()), sal.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	url := testbus.SilentServer(t)
	d, err := sal.Connect(ctxT(t), sal.WithBrokers(b.Config().Brokers...), sal.WithRegistry(url), sal.WithSubname("silent"),
		sal.WithDefinitions(salxml.Embedded()), sal.WithLogger(quiet), sal.WithRegistryTimeout(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got := d.Config().RegistryTimeout; got != 300*time.Millisecond {
		t.Errorf("RegistryTimeout %s", got)
	}
	_, err = d.NewRemote(ctxT(t), "Example", 1)
	if err == nil || !strings.Contains(err.Error(), "registry "+url+": register ") || !strings.Contains(err.Error(), "no answer within 300ms") {
		t.Errorf("NewRemote: %v", err)
	}
}
