package topics

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/lsst-sal/salgo/internal/kafka"
	"github.com/lsst-sal/salgo/internal/yamlx"
)

// The YAML files ts_salobj 8.2 reads, named by environment variables.
const (
	// EnvHistoryConfig names a YAML mapping of component name to history
	// depth for indexed components (Config.HistoryReadConfig).
	EnvHistoryConfig = "LSST_HISTORY_READ_CONFIG"
	// EnvClientConfig names a YAML mapping of librdkafka properties for
	// every Kafka client (Config.KafkaClient).
	EnvClientConfig = "LSST_KAFKA_BROKER_CLIENT_CONFIGURATION"
	// EnvProducerConfig names a YAML mapping of librdkafka properties for
	// the producer (Config.KafkaProducer).
	EnvProducerConfig = "LSST_KAFKA_PRODUCER_CONFIGURATION"
	// EnvConsumerConfig names a YAML mapping of librdkafka properties for
	// the consumers (Config.KafkaConsumer).
	EnvConsumerConfig = "LSST_KAFKA_CONSUMER_CONFIGURATION"
)

// readYAMLMapping reads the YAML mapping in the file that variable k
// names, with yaml.safe_load's meaning; every error names k and the file.
func readYAMLMapping(k, path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("topics: %w: %s: %v", ErrConfig, k, err)
	}
	v, err := yamlx.Unmarshal(path, b)
	if err != nil {
		return nil, fmt.Errorf("topics: %w: %s: %v", ErrConfig, k, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		what := "nothing"
		if v != nil {
			what = fmt.Sprintf("a %T", v)
			switch v.(type) {
			case []any:
				what = "a list"
			case string:
				what = "a string"
			}
		}
		return nil, fmt.Errorf("topics: %w: %s=%s holds %s, want a mapping", ErrConfig, k, path, what)
	}
	return m, nil
}

// readHistoryConfig reads the LSST_HISTORY_READ_CONFIG file: a mapping of
// component name to history depth (an integer of at least 1). found is
// false when the file does not exist, which, as in ts_salobj, is no error.
func readHistoryConfig(path string) (depths map[string]int, found bool, err error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	m, err := readYAMLMapping(EnvHistoryConfig, path)
	if err != nil {
		return nil, true, err
	}
	depths = make(map[string]int, len(m))
	for name, v := range m {
		n, ok := v.(int64)
		if !ok || n < 1 || n > 1<<31-1 {
			return nil, true, fmt.Errorf("topics: %w: %s=%s: %s: %s is not a history depth (want an integer of at least 1)", ErrConfig, EnvHistoryConfig, path, name, yamlText(v))
		}
		depths[name] = int(n)
	}
	return depths, true, nil
}

// yamlText shows a YAML value in a message.
func yamlText(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("%q", x)
	}
	return fmt.Sprint(v)
}

// historyDepth is the history depth of the indexed component name, read
// as ts_salobj's get_max_history_for_indexed_component does at each start:
// the component's entry in the HistoryReadConfig file if the file exists
// and names it, else MaxHistoryRead.
func (c *Config) historyDepth(name string) (int, error) {
	if c.HistoryReadConfig != "" {
		depths, _, err := readHistoryConfig(c.HistoryReadConfig)
		if err != nil {
			return 0, err
		}
		if n, ok := depths[name]; ok {
			return n, nil
		}
	}
	return c.MaxHistoryRead, nil
}

// Keys of the librdkafka files that are settings of the Config's own
// (only in the broker client file, except acks and idempotence, which are
// producer settings).
var (
	connectionKeys = []string{"bootstrap.servers", "security.protocol", "sasl.mechanism", "sasl.mechanisms",
		"sasl.username", "sasl.password", "ssl.ca.location", "ssl.certificate.location", "ssl.key.location",
		"ssl.endpoint.identification.algorithm"}
	producerKeys = []string{"acks", "request.required.acks", "enable.idempotence"}
)

// readKafkaFiles reads the three librdkafka YAML files, as ts_salobj
// merges them: the producer and consumer files, then the broker client
// file, which wins. Keys with a Config field of their own go into it;
// the others, checked, into KafkaClient, KafkaProducer and KafkaConsumer.
func readKafkaFiles(e env, c *Config) error {
	files := map[string]map[string]any{}
	paths := map[string]string{}
	for _, k := range []string{EnvProducerConfig, EnvConsumerConfig, EnvClientConfig} {
		// As ts_salobj: set means read (an empty value is no file).
		path, ok := e.lookup(k)
		if !ok {
			continue
		}
		m, err := readYAMLMapping(k, path)
		if err != nil {
			return err
		}
		files[k], paths[k] = m, path
	}
	bad := func(k, format string, args ...any) error {
		return fmt.Errorf("topics: %w: %s=%s: %s", ErrConfig, k, paths[k], fmt.Sprintf(format, args...))
	}
	roles := map[string]kafka.Role{EnvProducerConfig: kafka.RoleProducer, EnvConsumerConfig: kafka.RoleConsumer, EnvClientConfig: kafka.RoleClient}
	rest := map[string]map[string]any{}
	for _, k := range []string{EnvProducerConfig, EnvConsumerConfig, EnvClientConfig} {
		m, ok := files[k]
		if !ok {
			continue
		}
		r := map[string]any{}
		for key, v := range m {
			switch {
			case contains(connectionKeys, key) && k != EnvClientConfig:
				return bad(k, "%s is a connection setting: put it in %s (ts_salobj's broker client configuration, which every client uses)", key, EnvClientConfig)
			case contains(producerKeys, key) && k == EnvConsumerConfig:
				return bad(k, "%s is a producer property, not a consumer one", key)
			case contains(connectionKeys, key) || contains(producerKeys, key):
			default:
				r[key] = v
			}
		}
		if err := kafka.Check(roles[k], r); err != nil {
			return bad(k, "%s", strings.TrimPrefix(strings.TrimPrefix(err.Error(), "kafka: "), kafka.ErrBadConfig.Error()+": "))
		}
		rest[k] = r
		if err := applyProducerKeys(c, m, func(format string, args ...any) error { return bad(k, format, args...) }); err != nil {
			return err
		}
	}
	if m, ok := files[EnvClientConfig]; ok {
		if err := applyConnectionKeys(c, m, func(format string, args ...any) error { return bad(EnvClientConfig, format, args...) }); err != nil {
			return err
		}
	}
	c.KafkaProducer, c.KafkaConsumer, c.KafkaClient = nonEmpty(rest[EnvProducerConfig]), nonEmpty(rest[EnvConsumerConfig]), nonEmpty(rest[EnvClientConfig])
	return nil
}

func nonEmpty(m map[string]any) map[string]any {
	if len(m) == 0 {
		return nil
	}
	return m
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// applyProducerKeys takes acks and enable.idempotence of a file.
func applyProducerKeys(c *Config, m map[string]any, bad func(string, ...any) error) error {
	for _, key := range []string{"request.required.acks", "acks"} {
		v, ok := m[key]
		if !ok {
			continue
		}
		s, _ := kafka.PropString(v)
		acks, ok := parseAcks(s)
		if !ok {
			return bad("%s: %s is not an acks setting (want 0, 1, all or -1)", key, yamlText(v))
		}
		c.Acks = acks
	}
	if v, ok := m["enable.idempotence"]; ok {
		b, isBool := v.(bool)
		if s, isStr := v.(string); isStr && (s == "true" || s == "false") {
			b, isBool = s == "true", true
		}
		if !isBool {
			return bad("enable.idempotence: %s is not a boolean (want true or false)", yamlText(v))
		}
		c.Idempotent = b
	}
	return nil
}

// applyConnectionKeys takes the broker, SASL and TLS settings of the
// broker client file, over what the environment said.
func applyConnectionKeys(c *Config, m map[string]any, bad func(string, ...any) error) error {
	str := func(key string) (string, bool, error) {
		v, ok := m[key]
		if !ok {
			return "", false, nil
		}
		s, err := kafka.PropString(v)
		if err != nil || strings.TrimSpace(s) == "" {
			return "", false, bad("%s: %s is not a non-empty string", key, yamlText(v))
		}
		return s, true, nil
	}
	if s, ok, err := str("bootstrap.servers"); err != nil {
		return err
	} else if ok {
		bs, err := parseBrokers("bootstrap.servers", s)
		if err != nil {
			return bad("%s", strings.TrimPrefix(err.Error(), "topics: "+ErrConfig.Error()+": "))
		}
		c.Brokers = bs
	}
	if s, ok, err := str("security.protocol"); err != nil {
		return err
	} else if ok {
		p := strings.ToUpper(s)
		switch p {
		case "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL":
		default:
			return bad("security.protocol: %q is not a security protocol (want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)", s)
		}
		c.Protocol = p
	}
	for _, key := range []string{"sasl.mechanisms", "sasl.mechanism"} {
		s, ok, err := str(key)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		mech := strings.ToUpper(s)
		switch mech {
		case "SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN":
		default:
			return bad("%s: %q is not a supported SASL mechanism (want SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN)", key, s)
		}
		c.Mechanism = mech
	}
	if s, ok, err := str("sasl.username"); err != nil {
		return err
	} else if ok {
		c.User = s
	}
	if s, ok, err := str("sasl.password"); err != nil {
		return err
	} else if ok {
		c.Password = s
	}
	switch {
	case (c.User == "") != (c.Password == ""):
		return bad("SASL needs both sasl.username and sasl.password (or %s and %s)", EnvUser, EnvPassword)
	case c.User != "" && !strings.HasPrefix(c.Protocol, "SASL_"):
		if _, ok := m["security.protocol"]; ok || c.Protocol != "" {
			return bad("security.protocol %s sends no credentials, but a user name and password are set (want SASL_PLAINTEXT or SASL_SSL)", cmpOr(c.Protocol, "PLAINTEXT"))
		}
		c.Protocol = "SASL_PLAINTEXT"
	case strings.HasPrefix(c.Protocol, "SASL_") && c.User == "":
		return bad("security.protocol %s needs sasl.username and sasl.password", c.Protocol)
	}
	if strings.HasPrefix(c.Protocol, "SASL_") && c.Mechanism == "" {
		c.Mechanism = "SCRAM-SHA-512"
	}
	var set bool
	for _, key := range []string{"ssl.ca.location", "ssl.certificate.location", "ssl.key.location"} {
		_, ok := m[key]
		set = set || ok
	}
	if set {
		// The files of the environment, unless the YAML names its own.
		files := [3]string{c.tlsFiles[0], c.tlsFiles[1], c.tlsFiles[2]}
		names := [3]string{EnvTLSCA, EnvTLSCert, EnvTLSKey}
		for i, key := range []string{"ssl.ca.location", "ssl.certificate.location", "ssl.key.location"} {
			s, ok, err := str(key)
			if err != nil {
				return err
			}
			if ok {
				files[i], names[i] = s, EnvClientConfig+" "+key
			}
		}
		t, err := loadTLS(files[0], files[1], files[2], names)
		if err != nil {
			return err
		}
		c.TLS, c.tlsFiles = t, files
		if c.Protocol == "" {
			c.Protocol = "SSL"
		}
	}
	if s, ok, err := str("ssl.endpoint.identification.algorithm"); err != nil {
		return err
	} else if ok {
		switch strings.ToLower(s) {
		case "https":
		case "none":
			if c.TLS == nil {
				c.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
			}
			skipHostname(c.TLS)
		default:
			return bad("ssl.endpoint.identification.algorithm: %q: want https or none", s)
		}
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// skipHostname makes t verify the broker's certificate chain but not its
// host name, as librdkafka's ssl.endpoint.identification.algorithm=none.
func skipHostname(t *tls.Config) {
	roots := t.RootCAs
	t.InsecureSkipVerify = true
	t.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("the broker sent no certificate")
		}
		inter := x509.NewCertPool()
		for _, c := range cs.PeerCertificates[1:] {
			inter.AddCert(c)
		}
		_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
		return err
	}
}
