package topics_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TestHistoryReadConfig: LSST_HISTORY_READ_CONFIG, as ts_salobj 8.2 reads
// it: a file that does not exist yet is no error (LSST_MAX_HISTORY_READ
// applies); once it exists and names the indexed component, its depth
// applies to the next start; a file that names other components only
// changes nothing.
func TestHistoryReadConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.yaml")
	cfg := testConfig(t, salxml.Embedded())
	cfg.HistoryReadConfig = path
	d, err := topics.NewDomain(ctxT(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	comp := example(t, d)
	tp := comp.Event("scalars")
	for idx := 1; idx <= 5; idx++ {
		in, err := d.NewInstance(comp, idx, "")
		if err != nil {
			t.Fatal(err)
		}
		w, err := in.Writer(tp)
		if err != nil {
			t.Fatal(err)
		}
		if err := in.Start(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(ctxT(t), map[string]any{"int0": int32(idx)}); err != nil {
			t.Fatal(err)
		}
		in.Close()
	}
	history := func() []int32 {
		t.Helper()
		r, in := startReader(t, d, comp, 0, tp)
		defer in.Close()
		var got []int32
		for rec := r.TryNext(); rec != nil; rec = r.TryNext() {
			got = append(got, rec["salIndex"].(int32))
		}
		slices.Sort(got)
		return got
	}
	if got := history(); !slices.Equal(got, []int32{1, 2, 3, 4, 5}) {
		t.Errorf("no file yet (depth 500): history of indices %v", got)
	}
	if err := os.WriteFile(path, []byte("# depth per component\nExample: 2\nMTM1M3: 1000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := history(); !slices.Equal(got, []int32{4, 5}) {
		t.Errorf("Example: 2: history of indices %v, want the last two records' [4 5]", got)
	}
	if err := os.WriteFile(path, []byte("MTM1M3: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := history(); !slices.Equal(got, []int32{1, 2, 3, 4, 5}) {
		t.Errorf("a file without Example: history of indices %v", got)
	}
	// Broken after the Domain was made: the next start says so.
	if err := os.WriteFile(path, []byte("Example: many\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, _ := d.NewInstance(comp, 0, "")
	defer in.Close()
	in.Reader(tp, topics.ReaderOptions{MaxHistory: 1})
	want := `topics: bad configuration: LSST_HISTORY_READ_CONFIG=` + path + `: Example: "many" is not a history depth (want an integer of at least 1)`
	if err := in.Start(ctxT(t)); err == nil || err.Error() != want {
		t.Errorf("start with a broken file:\n got %v\nwant %s", err, want)
	}
}

// TestEnvFiles_Errors: the YAML files of LSST_HISTORY_READ_CONFIG and
// LSST_KAFKA_*_CONFIGURATION: what cannot be used is an error naming the
// variable, the file and what is wrong, in these words.
func TestEnvFiles_Errors(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	list := file("list.yaml", "- Example\n")
	empty := file("empty.yaml", "# nothing\n")
	badYAML := file("bad.yaml", "Example: 2\n  MTM1M3: [\n")
	zero := file("zero.yaml", "Example: 0\n")
	boolean := file("bool.yaml", "Example: yes\n")
	unknown := file("unknown.yaml", "compression.level: 3\n")
	group := file("group.yaml", "group.id: mine\n")
	consumerInProducer := file("fetch.yaml", "fetch.min.bytes: 10\n")
	bootstrapInProducer := file("bootstrap.yaml", "bootstrap.servers: k1:9092\n")
	acksInConsumer := file("acks.yaml", "acks: all\n")
	badAcks := file("badacks.yaml", "acks: 2\n")
	badLinger := file("linger.yaml", "linger.ms: soon\n")
	badServers := file("servers.yaml", "bootstrap.servers: ',,'\n")
	userOnly := file("user.yaml", "sasl.username: u\n")
	plainCreds := file("plaincreds.yaml", "security.protocol: PLAINTEXT\nsasl.username: u\nsasl.password: secret\n")
	idem := file("idem.yaml", "enable.idempotence: true\n")
	missing := filepath.Join(dir, "missing.yaml")
	cases := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"history: a list", map[string]string{topics.EnvHistoryConfig: list},
			`topics: bad configuration: LSST_HISTORY_READ_CONFIG=` + list + ` holds a list, want a mapping`},
		{"history: empty", map[string]string{topics.EnvHistoryConfig: empty},
			`topics: bad configuration: LSST_HISTORY_READ_CONFIG=` + empty + ` holds nothing, want a mapping`},
		{"history: not YAML", map[string]string{topics.EnvHistoryConfig: badYAML},
			`topics: bad configuration: LSST_HISTORY_READ_CONFIG: ` + badYAML + `:2: mapping values are not allowed in this context`},
		{"history: zero", map[string]string{topics.EnvHistoryConfig: zero},
			`topics: bad configuration: LSST_HISTORY_READ_CONFIG=` + zero + `: Example: 0 is not a history depth (want an integer of at least 1)`},
		{"history: a boolean", map[string]string{topics.EnvHistoryConfig: boolean},
			`topics: bad configuration: LSST_HISTORY_READ_CONFIG=` + boolean + `: Example: true is not a history depth (want an integer of at least 1)`},
		{"producer: missing file", map[string]string{topics.EnvProducerConfig: missing},
			`topics: bad configuration: LSST_KAFKA_PRODUCER_CONFIGURATION: open ` + missing + `: no such file or directory`},
		{"producer: empty value", map[string]string{topics.EnvProducerConfig: ""},
			`topics: bad configuration: LSST_KAFKA_PRODUCER_CONFIGURATION: open : no such file or directory`},
		{"producer: unknown property", map[string]string{topics.EnvProducerConfig: unknown},
			`topics: bad configuration: LSST_KAFKA_PRODUCER_CONFIGURATION=` + unknown + `: property compression.level has no franz-go equivalent in the SDK (a producer configuration may hold batch.size, client.id, compression.codec, compression.type, delivery.timeout.ms, enable.metrics.push, linger.ms, max.in.flight, max.in.flight.requests.per.connection, message.send.max.retries, message.timeout.ms, metadata.max.age.ms, queue.buffering.max.messages, queue.buffering.max.ms, request.timeout.ms, retries, retry.backoff.ms, socket.connection.setup.timeout.ms, socket.timeout.ms, topic.metadata.refresh.interval.ms)`},
		{"consumer: group.id", map[string]string{topics.EnvConsumerConfig: group},
			`topics: bad configuration: LSST_KAFKA_CONSUMER_CONFIGURATION=` + group + `: property group.id is not settable: the SDK reads assigned partitions without a consumer group`},
		{"producer: a consumer property", map[string]string{topics.EnvProducerConfig: consumerInProducer},
			`topics: bad configuration: LSST_KAFKA_PRODUCER_CONFIGURATION=` + consumerInProducer + `: property fetch.min.bytes is a consumer property, not a producer one`},
		{"producer: a connection setting", map[string]string{topics.EnvProducerConfig: bootstrapInProducer},
			`topics: bad configuration: LSST_KAFKA_PRODUCER_CONFIGURATION=` + bootstrapInProducer + `: bootstrap.servers is a connection setting: put it in LSST_KAFKA_BROKER_CLIENT_CONFIGURATION (ts_salobj's broker client configuration, which every client uses)`},
		{"consumer: acks", map[string]string{topics.EnvConsumerConfig: acksInConsumer},
			`topics: bad configuration: LSST_KAFKA_CONSUMER_CONFIGURATION=` + acksInConsumer + `: acks is a producer property, not a consumer one`},
		{"producer: bad acks", map[string]string{topics.EnvProducerConfig: badAcks},
			`topics: bad configuration: LSST_KAFKA_PRODUCER_CONFIGURATION=` + badAcks + `: acks: 2 is not an acks setting (want 0, 1, all or -1)`},
		{"producer: bad value", map[string]string{topics.EnvProducerConfig: badLinger},
			`topics: bad configuration: LSST_KAFKA_PRODUCER_CONFIGURATION=` + badLinger + `: property linger.ms: "soon" is not an integer`},
		{"client: no brokers", map[string]string{topics.EnvClientConfig: badServers},
			`topics: bad configuration: LSST_KAFKA_BROKER_CLIENT_CONFIGURATION=` + badServers + `: bootstrap.servers=",," names no broker (want host:port[,host:port...]; unset it for the in-process bus)`},
		{"client: user without password", map[string]string{topics.EnvClientConfig: userOnly},
			`topics: bad configuration: LSST_KAFKA_BROKER_CLIENT_CONFIGURATION=` + userOnly + `: SASL needs both sasl.username and sasl.password (or LSST_KAFKA_SECURITY_USERNAME and LSST_KAFKA_SECURITY_PASSWORD)`},
		{"client: credentials in plain text", map[string]string{topics.EnvClientConfig: plainCreds},
			`topics: bad configuration: LSST_KAFKA_BROKER_CLIENT_CONFIGURATION=` + plainCreds + `: security.protocol PLAINTEXT sends no credentials, but a user name and password are set (want SASL_PLAINTEXT or SASL_SSL)`},
		{"producer: idempotence without acks all", map[string]string{topics.EnvProducerConfig: idem},
			`topics: bad configuration: enable.idempotence: true in LSST_KAFKA_PRODUCER_CONFIGURATION=` + idem + ` needs LSST_KAFKA_PRODUCER_WAIT_ACKS=all (it is 1)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			unsetEnv(t)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			_, err := topics.ConfigFromEnv()
			if err == nil {
				t.Fatalf("%q: accepted", c.env)
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

// TestKafkaFiles_Merge: the three files as ts_salobj merges them: the
// producer (or consumer) file over the environment, the broker client
// file over both; connection settings of the client file over the LSST_*
// variables; the other properties kept for the clients of their role.
func TestKafkaFiles_Merge(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unsetEnv(t)
	t.Setenv(topics.EnvBroker, "env:9092")
	t.Setenv(topics.EnvAcks, "0")
	t.Setenv(topics.EnvProducerConfig, file("p.yaml", "acks: 1\nlinger.ms: 5\nenable.idempotence: false\n"))
	t.Setenv(topics.EnvConsumerConfig, file("c.yaml", "fetch.max.bytes: 1048576\n"))
	t.Setenv(topics.EnvClientConfig, file("b.yaml", "bootstrap.servers: k1:9092,k2:9092\nsecurity.protocol: SASL_SSL\nsasl.mechanism: SCRAM-SHA-256\nsasl.username: u\nsasl.password: 1234\nacks: all\nclient.id: me\n"))
	c, err := topics.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"k1:9092", "k2:9092"}; !slices.Equal(c.Brokers, want) {
		t.Errorf("brokers %v, want the client file's %v", c.Brokers, want)
	}
	if c.Protocol != "SASL_SSL" || c.Mechanism != "SCRAM-SHA-256" || c.User != "u" || c.Password != "1234" {
		t.Errorf("SASL %s %s %q: want the client file's", c.Protocol, c.Mechanism, c.User)
	}
	if c.Acks != "all" {
		t.Errorf("acks %s: want the client file's all (over the producer file's 1 and the environment's 0)", c.Acks)
	}
	if len(c.KafkaProducer) != 1 || c.KafkaProducer["linger.ms"] != int64(5) {
		t.Errorf("KafkaProducer %v", c.KafkaProducer)
	}
	if len(c.KafkaConsumer) != 1 || c.KafkaConsumer["fetch.max.bytes"] != int64(1048576) {
		t.Errorf("KafkaConsumer %v", c.KafkaConsumer)
	}
	if len(c.KafkaClient) != 1 || c.KafkaClient["client.id"] != "me" {
		t.Errorf("KafkaClient %v", c.KafkaClient)
	}
}

// TestKafkaProps_RoundTrip: a Domain whose clients carry properties
// from the files writes and reads as usual; a property map made in code
// that names a setting of Config's own is refused.
func TestKafkaProps_RoundTrip(t *testing.T) {
	cfg := testConfig(t, salxml.Embedded())
	cfg.KafkaProducer = map[string]any{"linger.ms": int64(1), "compression.type": "lz4"}
	cfg.KafkaConsumer = map[string]any{"fetch.wait.max.ms": int64(50)}
	cfg.KafkaClient = map[string]any{"client.id": "salgo-test"}
	d, err := topics.NewDomain(ctxT(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	comp := example(t, d)
	tp := comp.Telemetry("scalars")
	in, err := d.NewInstance(comp, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, _ := in.Reader(tp, topics.ReaderOptions{})
	w, _ := in.Writer(tp)
	if err := in.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(ctxT(t), map[string]any{"int0": int32(42)}); err != nil {
		t.Fatal(err)
	}
	if rec, err := r.Next(ctxT(t)); err != nil || rec["int0"] != int32(42) {
		t.Fatalf("read back %v, %v", rec, err)
	}

	cfg = testConfig(t, salxml.Embedded())
	cfg.KafkaProducer = map[string]any{"acks": "all"}
	_, err = topics.NewDomain(context.Background(), cfg)
	if want := `topics: bad configuration: Config.KafkaProducer: acks is a setting of Config's own: set its field`; err == nil || err.Error() != want {
		t.Errorf("acks in KafkaProducer:\n got %v\nwant %s", err, want)
	}
}
