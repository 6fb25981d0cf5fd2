package topics_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

func TestConfigFromEnv(t *testing.T) {
	unsetEnv(t)
	c, err := topics.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Brokers) != 0 || c.Subname != "" || c.Replication != 1 || c.Acks != "1" || c.MaxHistoryRead != 500 || c.Protocol != "" {
		t.Errorf("defaults: %+v", c)
	}
	t.Setenv(topics.EnvBroker, " k1:9092, k2:9092 ,")
	t.Setenv(topics.EnvRegistry, "http://registry:8081")
	t.Setenv(topics.EnvSubname, "test_x")
	t.Setenv(topics.EnvReplication, "3")
	t.Setenv(topics.EnvAcks, "all")
	t.Setenv(topics.EnvMaxHistoryRead, "20")
	t.Setenv(topics.EnvUser, "u")
	t.Setenv(topics.EnvPassword, "p")
	if c, err = topics.ConfigFromEnv(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Brokers, ";") != "k1:9092;k2:9092" || c.RegistryURL != "http://registry:8081" || c.Subname != "test_x" ||
		c.Replication != 3 || c.Acks != "all" || c.MaxHistoryRead != 20 ||
		c.User != "u" || c.Password != "p" || c.Protocol != "SASL_PLAINTEXT" || c.Mechanism != "SCRAM-SHA-512" {
		t.Errorf("from the environment: %+v", c)
	}
	if strings.Contains(c.String(), "p\"") || strings.Contains(c.String(), "=p ") {
		t.Errorf("String shows the password: %s", c)
	}
}

// TestNewDomain_ConfigErrors: a Config made in code is checked by
// NewDomain before any connection is tried; each mistake is an error
// matching ErrConfig, in these words.
func TestNewDomain_ConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		cfg  topics.Config
		want string
	}{
		{"no broker", topics.Config{}, `topics: bad configuration: no broker address (set LSST_KAFKA_BROKER_ADDR)`},
		{"no subname", topics.Config{Brokers: []string{"127.0.0.1:1"}, Subname: "-"}, `topics: bad configuration: You must define environment variable LSST_TOPIC_SUBNAME (a broker is configured: only the in-process bus has a default subname, "sal")`},
		{"broker", topics.Config{Brokers: []string{" "}}, `topics: bad configuration: broker address " " is not host:port`},
		{"acks", topics.Config{Acks: "2"}, `topics: bad configuration: unknown acks value "2" (want 0, 1, all or -1)`},
		{"idempotent", topics.Config{Acks: "1", Idempotent: true}, `topics: bad configuration: the idempotent producer needs acks=all, not 1`},
		{"subname", topics.Config{Subname: "a.b"}, `topics: bad configuration: topic subname "a.b" may hold only letters, digits, '_' and '-'`},
		{"protocol", topics.Config{Protocol: "SASL_TLS"}, `topics: bad configuration: unknown security protocol "SASL_TLS" (want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)`},
		{"SASL without password", topics.Config{Protocol: "SASL_SSL", User: "u"}, `topics: bad configuration: SASL_SSL needs a user name and a password`},
		{"SASL without user", topics.Config{Protocol: "SASL_PLAINTEXT", Password: "secret"}, `topics: bad configuration: SASL_PLAINTEXT needs a user name and a password`},
		{"registry", topics.Config{RegistryURL: "http://reg istry:80:81"}, `topics: bad configuration: registry: bad schema registry URL "http://reg istry:80:81": want http(s)://host:port[/path]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			if cfg.Brokers == nil && c.name != "no broker" {
				cfg.Brokers = []string{"127.0.0.1:1"} // never dialled: the configuration fails first
			}
			switch cfg.Subname {
			case "":
				cfg.Subname = "test"
			case "-":
				cfg.Subname = ""
			}
			cfg.Definitions = salxml.Embedded()
			cfg.Logger = testLogger(t)
			d, err := topics.NewDomain(context.Background(), cfg)
			if err == nil {
				d.Close()
				t.Fatalf("%+v: accepted", c.cfg)
			}
			if !errors.Is(err, topics.ErrConfig) {
				t.Errorf("%v does not match ErrConfig", err)
			}
			if err.Error() != c.want {
				t.Errorf("\n got %s\nwant %s", err, c.want)
			}
		})
	}
}

func writeFile(t *testing.T, name, text string) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNewDomain_Unreachable: with no broker listening, NewDomain fails
// once ctx is done, with an error that names the broker, instead of hanging.
func TestNewDomain_Unreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	d, err := topics.NewDomain(ctx, topics.Config{
		Brokers:     []string{"127.0.0.1:1"},
		RegistryURL: "http://127.0.0.1:1",
		Subname:     "test",
		Definitions: salxml.Embedded(),
		Logger:      testLogger(t),
	})
	if err == nil {
		d.Close()
		t.Fatal("NewDomain succeeded with no broker")
	}
	if !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("the error does not name the broker: %v", err)
	}
	if errors.Is(err, topics.ErrConfig) {
		t.Errorf("an unreachable broker is not a configuration error: %v", err)
	}
}
