//go:build ignore

// Command registry serves a Confluent-compatible schema registry on a fixed
// address: franz-go's srfake, the registry of the SDK's embedded default,
// without the embedded broker. scripts/ci-integration.sh runs it when the
// real registry (Apicurio) cannot be started.
//
// It carries the "ignore" build constraint so that `go list ./...` (and
// with it internal/archtest, which allows srfake only in internal/embedded)
// and `go vet ./...` leave it out; build it by naming the file:
//
//	go build -o registry ./internal/interop/cmd/registry/main.go
//	./registry -addr 127.0.0.1:18081
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18081", "address to listen on")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("registry: ")

	reg := srfake.NewRegistry(srfake.WithGlobalCompat(sr.CompatBackward))
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: reg.Handler(), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	log.Printf("srfake schema registry (compatibility BACKWARD) on http://%s", ln.Addr())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
