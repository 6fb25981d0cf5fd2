package embedded

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// SegmentBytes is the segment size the SDK gives topics it creates on the
// embedded broker: kfake grows each in-memory segment by doubling inside
// its single request loop, which stalls every client for up to 0.75 s with
// its 100 MiB default (see BENCHMARKS.md).
const SegmentBytes = 1 << 20

// Options configure Start. The zero value picks free loopback ports.
type Options struct {
	// KafkaPort and RegistryPort choose fixed ports; 0 picks free ones.
	KafkaPort    int
	RegistryPort int
	// Host to listen on; default 127.0.0.1.
	Host string
	// DataDir, when set, keeps the bus in this folder (created if
	// needed) across restarts: the broker's topics, their ids and records
	// in KafkaDir (kfake.DataDir), every registered schema with its id in
	// RegistryFile. Start with a folder used before serves the same bus:
	// with the same ports too, clients carry on as after a real broker's
	// restart. Empty (the default): everything is in memory, and a
	// restart is a new, empty bus. Start refuses a folder another
	// cluster is using (ErrDataDirInUse).
	DataDir string
}

// ErrDataDirInUse: Start was given a data folder another cluster (in
// this process or another) is using.
var ErrDataDirInUse = errors.New("in use by another embedded broker (one at a time per folder)")

// Cluster is a running embedded broker and registry.
type Cluster struct {
	kf      *kfake.Cluster
	reg     *srfake.Registry
	front   *fastRegistry
	srv     *http.Server
	ln      net.Listener
	url     string
	lock    *os.File // the data folder's lock, or nil
	done    chan struct{}
	closeMu sync.Once
}

// Start starts a one-broker kfake cluster and an srfake registry.
func Start(o Options) (*Cluster, error) {
	host := o.Host
	if host == "" {
		host = "127.0.0.1"
	}
	kopts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.DefaultNumPartitions(1),
		kfake.ListenFn(func(network, _ string) (net.Listener, error) {
			return net.Listen(network, net.JoinHostPort(host, strconv.Itoa(o.KafkaPort)))
		}),
		kfake.BrokerConfigs(map[string]string{"log.segment.bytes": strconv.Itoa(SegmentBytes)}),
	}
	reg := srfake.NewRegistry(srfake.WithGlobalCompat(sr.CompatBackward))
	front := newFastRegistry(reg)
	var lock *os.File
	if o.DataDir != "" {
		if err := os.MkdirAll(o.DataDir, 0o755); err != nil {
			return nil, fmt.Errorf("embedded: data folder: %w", err)
		}
		var err error
		if lock, err = lockDataDir(o.DataDir); err != nil {
			return nil, err
		}
		path := filepath.Join(o.DataDir, RegistryFile)
		entries, log, err := openRegistryLog(path)
		if err != nil {
			lock.Close()
			return nil, err
		}
		if err := front.load(path, entries); err != nil {
			log.close()
			lock.Close()
			return nil, err
		}
		front.log = log
		kopts = append(kopts, kfake.DataDir(filepath.Join(o.DataDir, KafkaDir)))
	}
	kf, err := kfake.NewCluster(kopts...)
	if err != nil {
		front.closeLog()
		closeLock(lock)
		if o.DataDir != "" {
			return nil, fmt.Errorf("embedded: start kafka in %s: %w", filepath.Join(o.DataDir, KafkaDir), err)
		}
		return nil, fmt.Errorf("embedded: start kafka: %w", err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(o.RegistryPort)))
	if err != nil {
		kf.Close()
		front.closeLog()
		closeLock(lock)
		return nil, fmt.Errorf("embedded: start schema registry: %w", err)
	}
	c := &Cluster{
		kf:    kf,
		reg:   reg,
		front: front,
		ln:    ln,
		lock:  lock,
		srv:   &http.Server{Handler: front, ReadHeaderTimeout: 10 * time.Second},
		url:   "http://" + ln.Addr().String(),
		done:  make(chan struct{}),
	}
	go func() {
		defer close(c.done)
		if err := c.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the listener was closed under us; Close reports nothing more useful
		}
	}()
	return c, nil
}

// Brokers returns the broker addresses (host:port).
func (c *Cluster) Brokers() []string { return c.kf.ListenAddrs() }

// RegistryURL returns the schema registry base URL.
func (c *Cluster) RegistryURL() string { return c.url }

// Registry returns the in-memory registry, for tests that inject faults,
// holding every schema registered before the call.
func (c *Cluster) Registry() *srfake.Registry {
	c.front.flush()
	return c.reg
}

// RegistryOutage makes every registry request fail with 503 (down) or
// serves them again, for tests of a registry outage.
func (c *Cluster) RegistryOutage(down bool) { c.front.down.Store(down) }

// Kafka returns the fake cluster, for tests that inject faults.
func (c *Cluster) Kafka() *kfake.Cluster { return c.kf }

// Close stops the registry and the broker. It is safe to call twice.
func (c *Cluster) Close() {
	c.closeMu.Do(func() {
		_ = c.srv.Close()
		<-c.done
		c.reg.Close()
		c.front.closeLog()
		c.kf.Close()
		closeLock(c.lock) // after kfake has written its state
	})
}

func closeLock(f *os.File) {
	if f != nil {
		_ = f.Close()
	}
}
