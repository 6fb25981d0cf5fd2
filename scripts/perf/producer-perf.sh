#!/usr/bin/env bash
# shellcheck disable=SC2317  # cleanup runs from the EXIT trap
# Kafka's own producer benchmark beside the SDK's writer, on a real broker.
#
#   bash scripts/perf/producer-perf.sh [OUT_FILE]
#
# It
#   1. starts a real Apache Kafka 4.x broker with scripts/kafka/kafka.sh in a
#      run folder of its own, on ports of its own (27092-27095 by default, so
#      that it can run beside the CI's brokers on 19092-19095), and a schema
#      registry: franz-go's srfake (internal/interop/cmd/registry; the SDK
#      reads the registry only when a writer starts), or Apicurio with
#      PERF_REGISTRY=apicurio;
#   2. for each acks setting, runs the SDK's write benchmarks on that broker
#      (`go test ./benchmarks -bench 'WriteSync|WriteAsync'`, which also run
#      raw franz-go on the same bytes), reads the mean record size of each of
#      the three record sizes from their output, and runs Kafka's own
#      org.apache.kafka.tools.ProducerPerformance (kafka-tools jar) with that
#      record size, the same acks, no linger, no compression, no idempotence
#      and the franz-go client's batch size (1,000,012 bytes), PERF_RUNS times
#      each;
#   3. prints one table of medians: ProducerPerformance, raw franz-go and the
#      SDK (sync and async) in records/s and MB/s, and the ratios;
#   4. stops what it started (trap on EXIT) and removes the broker's data.
#
# It is not part of CI (a few minutes of CPU on a 2-core machine). The raw
# outputs go to OUT_FILE (default: a temporary file, printed at the end), from
# which BENCHMARKS.md's table was copied.
#
# Knobs (all optional):
#   PERF_PORT        first of the four broker ports (default 27092); the
#                    registry listens on PERF_PORT - 1011 (26081)
#   PERF_ACKS        acks settings to run (default "1 all")
#   PERF_RUNS        ProducerPerformance runs per size and acks (default 5)
#   PERF_COUNT       go test -count (default 5)
#   PERF_BENCHTIME   go test -benchtime (default 1s)
#   PERF_MB          megabytes each ProducerPerformance run sends (default 200,
#                    at most 200,000 records)
#   PERF_JAVA_PROPS  extra producer properties for ProducerPerformance
#   PERF_REGISTRY    srfake (default) or apicurio
#   TS_XML_DIR       ts_xml (default ../shared/ts_xml when it exists); without
#                    it only the small records are measured
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
K="$root/scripts/kafka/kafka.sh"

PERF_PORT="${PERF_PORT:-27092}"
PERF_ACKS="${PERF_ACKS:-1 all}"
PERF_RUNS="${PERF_RUNS:-5}"
PERF_COUNT="${PERF_COUNT:-5}"
PERF_BENCHTIME="${PERF_BENCHTIME:-1s}"
PERF_MB="${PERF_MB:-200}"
PERF_REGISTRY="${PERF_REGISTRY:-srfake}"
OUT="${1:-}"

say() { printf '== %s\n' "$*" >&2; }
die() { printf 'producer-perf: %s\n' "$*" >&2; exit 1; }

command -v python3 >/dev/null || die "python3 is needed to summarise the runs"
if [ -z "${TS_XML_DIR:-}" ] && [ -d "$root/../shared/ts_xml" ]; then
  TS_XML_DIR="$root/../shared/ts_xml"
fi
if [ -n "${TS_XML_DIR:-}" ]; then
  TS_XML_DIR=$(cd "$TS_XML_DIR" && pwd)
  export TS_XML_DIR
else
  say "TS_XML_DIR is not set: only the small (Example) records are measured"
fi

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
export KAFKA_PORT=$PERF_PORT KAFKA_SSL_PORT=$((PERF_PORT + 1)) KAFKA_SASL_PORT=$((PERF_PORT + 2)) \
  KAFKA_CONTROLLER_PORT=$((PERF_PORT + 3))
export REGISTRY_PORT="${REGISTRY_PORT:-$((PERF_PORT - 1011))}" REGISTRY_MGMT_PORT="${REGISTRY_MGMT_PORT:-$((PERF_PORT - 1010))}"
for p in "$KAFKA_PORT" "$KAFKA_SSL_PORT" "$KAFKA_SASL_PORT" "$KAFKA_CONTROLLER_PORT" "$REGISTRY_PORT"; do
  port_busy "$p" && die "port $p is in use (another broker?); set PERF_PORT to the first of four free ports"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/salgo-perf.XXXXXX")
RUN="$WORK/kafka"
mkdir -p "$RUN"
[ -n "$OUT" ] || OUT="$WORK/producer-perf.txt"
SRFAKE_PID=""
cleanup() {
  local rc=$?
  set +e
  trap - EXIT INT TERM
  say "stopping what this run started"
  if [ -n "$SRFAKE_PID" ]; then
    kill "$SRFAKE_PID" 2>/dev/null
    wait "$SRFAKE_PID" 2>/dev/null
  fi
  bash "$K" stop --clean "$RUN" >/dev/null 2>&1
  case "$OUT" in
    "$WORK"/*) cp "$OUT" "${TMPDIR:-/tmp}/salgo-producer-perf.txt" 2>/dev/null && say "raw output kept in ${TMPDIR:-/tmp}/salgo-producer-perf.txt" ;;
  esac
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

say "starting Kafka on 127.0.0.1:$KAFKA_PORT in $RUN"
bash "$K" start "$RUN" >/dev/null 2>"$WORK/kafka-start.log" || { cat "$WORK/kafka-start.log" >&2; die "the broker did not start"; }
# shellcheck disable=SC1091
. "$RUN/kafka.env"
BOOT="$LSST_KAFKA_BROKER_ADDR"

if [ "$PERF_REGISTRY" = apicurio ]; then
  say "starting Apicurio on :$REGISTRY_PORT"
  bash "$K" registry-start "$RUN" >/dev/null 2>"$WORK/registry-start.log" || { tail -n 20 "$WORK/registry-start.log" >&2; die "Apicurio did not start"; }
  # shellcheck disable=SC1091
  . "$RUN/registry.env"
else
  go build -o "$WORK/registry" ./internal/interop/cmd/registry/main.go
  "$WORK/registry" -addr "127.0.0.1:$REGISTRY_PORT" </dev/null >"$WORK/registry.log" 2>&1 &
  SRFAKE_PID=$!
  export LSST_SCHEMA_REGISTRY_URL="http://127.0.0.1:$REGISTRY_PORT"
  for _ in $(seq 100); do
    curl -sf -o /dev/null "$LSST_SCHEMA_REGISTRY_URL/subjects" && break
    kill -0 "$SRFAKE_PID" 2>/dev/null || { cat "$WORK/registry.log" >&2; die "the srfake registry exited"; }
    sleep 0.2
  done
  curl -sf -o /dev/null "$LSST_SCHEMA_REGISTRY_URL/subjects" || die "the srfake registry does not answer at $LSST_SCHEMA_REGISTRY_URL"
fi
export LSST_KAFKA_BROKER_ADDR LSST_SCHEMA_REGISTRY_URL
say "broker $BOOT (Kafka ${KAFKA_VERSION:-?}), registry $LSST_SCHEMA_REGISTRY_URL ($PERF_REGISTRY)"

go test -c -o "$WORK/benchmarks.test" ./benchmarks/
{
  echo "# scripts/perf/producer-perf.sh, $(date -u +%Y-%m-%dT%H:%MZ), $(uname -m), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# broker: Kafka ${KAFKA_VERSION:-?} at $BOOT (scripts/kafka/kafka.sh), registry: $PERF_REGISTRY"
} >"$OUT"

for acks in $PERF_ACKS; do
  say "acks=$acks: the SDK's writers beside raw franz-go (go test -bench 'WriteSync|WriteAsync' -count $PERF_COUNT -benchtime $PERF_BENCHTIME)"
  echo "## acks=$acks go test" >>"$OUT"
  (cd benchmarks && LSST_KAFKA_PRODUCER_WAIT_ACKS=$acks "$WORK/benchmarks.test" -test.run XXX \
    -test.bench 'WriteSync|WriteAsync' -test.count "$PERF_COUNT" -test.benchtime "$PERF_BENCHTIME" -test.timeout 60m) |
    tee -a "$OUT" | grep -E '^(Benchmark|FAIL|---)' >&2
  # The mean framed size of each record size, from its async MB/s and msgs/s.
  sizes=$(python3 - "$OUT" "$acks" <<'EOF'
import re, sys, statistics
text = open(sys.argv[1]).read().split("## acks=" + sys.argv[2] + " go test")[-1]
got = {}
for m in re.finditer(r"^BenchmarkWriteAsync/(\w+)-\d+\s+\d+\s+(.*)$", text, re.M):
    f = m.group(2).split()
    v = {f[i + 1]: float(f[i]) for i in range(0, len(f) - 1, 2)}
    got.setdefault(m.group(1), []).append(v["MB/s"] * 1e6 / v["msgs/s"])
print(" ".join(f"{k}={round(statistics.median(v))}" for k, v in got.items()))
EOF
)
  [ -n "$sizes" ] || die "no BenchmarkWriteAsync results for acks=$acks (see $OUT)"
  for kv in $sizes; do
    name=${kv%%=*} size=${kv#*=}
    num=$(( PERF_MB * 1000000 / size ))
    num=$(( num > 200000 ? 200000 : num ))
    topic="perf-$name-acks$acks"
    say "acks=$acks $name: ProducerPerformance, $num records of $size bytes, $PERF_RUNS runs"
    for run in $(seq "$PERF_RUNS"); do
      bash "$K" tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOT" --create --topic "$topic" \
        --partitions 1 --replication-factor 1 >/dev/null
      # shellcheck disable=SC2086
      line=$(bash "$K" tool org.apache.kafka.tools.ProducerPerformance --topic "$topic" --num-records "$num" \
        --record-size "$size" --throughput -1 --command-property bootstrap.servers="$BOOT" acks="$acks" linger.ms=0 \
        batch.size=1000012 compression.type=none enable.idempotence=false ${PERF_JAVA_PROPS:-} | tail -n 1)
      echo "ProducerPerformance/$name acks=$acks run=$run size=$size: $line" | tee -a "$OUT" >&2
      bash "$K" tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOT" --delete --topic "$topic" >/dev/null
    done
  done
done

say "summary (medians; raw = franz-go with the SDK's producer settings, same run as the SDK)"
python3 - "$OUT" <<'EOF' | tee -a "$OUT"
import re, sys, statistics
text = open(sys.argv[1]).read()
med = statistics.median
rows = []
for part in text.split("## acks=")[1:]:
    acks = part.split()[0]
    go = {}
    for m in re.finditer(r"^Benchmark(WriteSync|WriteAsync)/(\w+)-\d+\s+\d+\s+(.*)$", part, re.M):
        f = m.group(3).split()
        v = {f[i + 1]: float(f[i]) for i in range(0, len(f) - 1, 2)}
        go.setdefault((m.group(2), m.group(1)), []).append(v)
    java = {}
    for m in re.finditer(r"^ProducerPerformance/(\w+) acks=\S+ run=\d+ size=(\d+): (\d+) records sent, ([\d.]+) records/sec \(([\d.]+) MB/sec\)", part, re.M):
        java.setdefault(m.group(1), []).append((int(m.group(2)), float(m.group(4)), float(m.group(5))))
    for name in ("small", "fad", "largest"):
        if name not in java:
            continue
        size = java[name][0][0]
        jr = med([j[1] for j in java[name]])
        a = go.get((name, "WriteAsync"), [])
        s = go.get((name, "WriteSync"), [])
        arate = med([v["msgs/s"] for v in a]) if a else float("nan")
        raw = med([v["raw-msgs/s"] for v in a]) if a else float("nan")
        srate = med([v["msgs/s"] for v in s]) if s else float("nan")
        rows.append((acks, name, size, len(java[name]), len(a), jr, raw, arate, srate))
print("| acks | record | bytes | ProducerPerformance msgs/s (MB/s) | raw franz-go async | SDK async | SDK sync | SDK async / ProducerPerformance | SDK async / raw |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for acks, name, size, nj, ng, jr, raw, arate, srate in rows:
    mb = lambda r: f"{r:,.0f} ({r * size / 1e6:,.1f})"
    print(f"| {acks} | {name} | {size:,} | {mb(jr)} | {mb(raw)} | {mb(arate)} | {mb(srate)} | {arate / jr:.2f} | {arate / raw:.2f} |")
print(f"\n(ProducerPerformance: median of {rows[0][3] if rows else 0} runs; go test: median of {rows[0][4] if rows else 0} runs)")
EOF
say "raw output: $OUT"
