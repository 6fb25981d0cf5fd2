#!/usr/bin/env bash
# shellcheck disable=SC2317  # tail_logs and cleanup run from the EXIT trap
# The integration, interop and security suites on a real Apache Kafka 4.x
# broker and a Confluent-compatible schema registry. .ci/run calls it after
# the unit tests:
#
#   bash scripts/ci-integration.sh
#
# It
#   1. makes (or reuses) a Python venv with internal/interop/py/requirements.txt
#      (cached under ${XDG_CACHE_HOME:-$HOME/.cache}/salgo-venv/<hash>);
#   2. starts Kafka with scripts/kafka/kafka.sh (PLAINTEXT, SASL SCRAM, SSL),
#      a second broker with KAFKA_MTLS=1 for the mutual-TLS tests, and the
#      Apicurio registry; if Apicurio cannot start it runs the SDK's own
#      registry (srfake, internal/interop/cmd/registry) instead;
#   3. runs `go test ./topics/ ./remote/ ./controller/ ./sal/... ./examples/...` (the tests of the embedded default,
#      now on the real broker, with 30 SIGTERM runs of examples/testcsc), salctl's liveness tests
#      (in cmd/salctl, its own module: go test -run ... ./) and `go test -v ./internal/interop/`, then the
#      broker fault tests `go test -v ./internal/faults/` on brokers of their own;
#   4. always stops what it started (trap on EXIT, also on failure or signal).
#
# It exits non-zero when anything fails. It needs no stdin and runs as root
# from a fresh clone (CI), or as any user with Java, Maven and Python 3.
#
# Knobs (all optional):
#   KAFKA_PORT, KAFKA_SSL_PORT, KAFKA_SASL_PORT, KAFKA_CONTROLLER_PORT,
#   REGISTRY_PORT, REGISTRY_MGMT_PORT   fixed ports (default: kafka.sh's
#                        19092-19095 and 18081-18082, shifted by 1000s when
#                        those are taken, e.g. by a developer's own broker)
#   SALGO_REGISTRY       apicurio (default, falls back to srfake) or srfake
#   SALGO_MTLS           0 to skip the second (mutual TLS) broker
#   SALGO_FAULTS         0 to skip the broker fault tests (internal/faults)
#   SALGO_S3             auto (default: SeaweedFS, moto if weed cannot be built),
#                        seaweedfs, moto, or 0 to skip the Large File Annex store
#   S3_PORT              the S3 store's port (default 18333; SeaweedFS uses
#                        18333-18340, shifted by 1000s when taken)
#   SALGO_PYTHON_BASE    the Python that makes the venv (default python3)
#   SALGO_VENV_DIR       where venvs are cached
#   TS_XML_DIR           ts_xml for the Test component (default ../shared/ts_xml
#                        when it exists)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
t0=$SECONDS
K="$root/scripts/kafka/kafka.sh"
REQ="$root/internal/interop/py/requirements.txt"
S3="$root/scripts/s3/s3.sh"

say() { printf '== %s\n' "$*"; }
warn() { printf 'ci-integration: %s\n' "$*" >&2; }

LOGS=$(mktemp -d "${TMPDIR:-/tmp}/salgo-ci-logs.XXXXXX")
RUN=""
RUN_MTLS=""
SRFAKE_PID=""
REGISTRY_KIND=""
declare -A RESULT=()
FAILED=0
SUITES=""  # set once the go test suites run: their output says what failed
VENV_JOB=""
REG_JOB=""
MTLS_JOB=""
RUN_S3=""
S3_JOB=""

tail_logs() {
  local f
  for f in "$LOGS"/*.log "${RUN:+$RUN/broker.log}" "${RUN:+$RUN/registry.log}" "${RUN_MTLS:+$RUN_MTLS/broker.log}" "${RUN_S3:+$RUN_S3/s3.log}"; do
    if [ -z "$f" ] || [ ! -s "$f" ]; then continue; fi
    printf -- '--- last lines of %s\n' "$f" >&2
    tail -n 15 "$f" >&2
  done
}

cleanup() {
  local rc=$?
  set +e
  trap - EXIT INT TERM
  [ "$rc" -ne 0 ] && [ -z "$SUITES" ] && tail_logs
  say "stopping what this run started"
  # A start still running in the background ends within its own timeout;
  # wait for it so that what it started is recorded and can be stopped.
  local j
  for j in $VENV_JOB $REG_JOB $MTLS_JOB $S3_JOB; do wait "$j" 2>/dev/null; done
  if [ -n "$SRFAKE_PID" ]; then
    kill "$SRFAKE_PID" 2>/dev/null
    wait "$SRFAKE_PID" 2>/dev/null
  fi
  [ -n "$RUN_MTLS" ] && bash "$K" stop --clean "$RUN_MTLS" >/dev/null 2>>"$LOGS/stop.log"
  [ -n "$RUN" ] && bash "$K" stop --clean "$RUN" >/dev/null 2>>"$LOGS/stop.log"
  [ -n "$RUN_S3" ] && bash "$S3" stop --clean "$RUN_S3" >/dev/null 2>>"$LOGS/stop.log"
  [ -s "$LOGS/stop.log" ] && grep -i 'error\|fail\|kill' "$LOGS/stop.log" >&2
  rm -rf "$LOGS"
  local k
  say "summary ($((SECONDS - t0)) s, Kafka ${KAFKA_VERSION:-not started}, registry ${REGISTRY_KIND:-not started}):"
  for k in "${!RESULT[@]}"; do printf '   %-40s %s\n' "$k" "${RESULT[$k]}"; done | sort
  if [ "$rc" -eq 0 ]; then say "ci-integration: PASS"; else say "ci-integration: FAIL (exit $rc)"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- ports ----------------------------------------------------------------
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if [ -z "${KAFKA_PORT:-}" ]; then
  found=""
  for off in 0 1000 2000 3000 4000 5000 6000 7000 8000 9000; do
    busy=""
    for p in 19092 19093 19094 19095 19192 19193 19194 19195 18081 18082; do
      if port_busy $((p + off)); then busy=1; break; fi
    done
    if [ -z "$busy" ]; then found=$off; break; fi
  done
  [ -n "$found" ] || { warn "no free set of ports near 19092/18081"; exit 1; }
  [ "$found" = 0 ] || warn "default ports in use: shifting every port by $found"
  export KAFKA_PORT=$((19092 + found)) KAFKA_SSL_PORT=$((19093 + found)) \
    KAFKA_SASL_PORT=$((19094 + found)) KAFKA_CONTROLLER_PORT=$((19095 + found))
  export REGISTRY_PORT="${REGISTRY_PORT:-$((18081 + found))}" REGISTRY_MGMT_PORT="${REGISTRY_MGMT_PORT:-$((18082 + found))}"
fi
REGISTRY_PORT="${REGISTRY_PORT:-18081}"
MTLS_BASE=$((KAFKA_PORT + 100))

# --- Python venv (in the background) --------------------------------------
setup_venv() {
  local py ver hash base dir
  py="${SALGO_PYTHON_BASE:-$(command -v python3 || true)}"
  if [ -z "$py" ] || ! "$py" -c 'import venv, ensurepip' 2>/dev/null; then py=/usr/bin/python3; fi
  ver=$("$py" -c 'import sys; print(sys.version.split()[0])')
  hash=$({ cat "$REQ"; echo "$ver"; } | sha256sum | cut -c1-16)
  base="${SALGO_VENV_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/salgo-venv}"
  dir="$base/py$ver-$hash"
  mkdir -p "$base"
  (
    flock 9
    if [ -f "$dir/.complete" ] && "$dir/bin/python" -c 'import confluent_kafka.schema_registry.avro' 2>/dev/null; then
      echo "reusing $dir"
    else
      rm -rf "$dir"
      "$py" -m venv "$dir"
      "$dir/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQ"
      touch "$dir/.complete"
      echo "made $dir"
    fi
  ) 9>"$base/.lock"
  echo "$dir/bin/python" >"$LOGS/venv.python"
}
setup_venv </dev/null >"$LOGS/venv.log" 2>&1 &
VENV_JOB=$!

# --- S3 object store for the Large File Annex (in the background: a cold
# SeaweedFS build takes minutes) ----------------------------------------------
if [ "${SALGO_S3:-auto}" != 0 ]; then
  RUN_S3=$(mktemp -d "${TMPDIR:-/tmp}/salgo-ci-s3.XXXXXX")
  S3_KIND="${SALGO_S3:-auto}" bash "$S3" start "$RUN_S3" </dev/null >/dev/null 2>"$LOGS/s3-start.log" &
  S3_JOB=$!
fi

# --- broker ---------------------------------------------------------------
RUN=$(mktemp -d "${TMPDIR:-/tmp}/salgo-ci-kafka.XXXXXX")
say "starting Kafka (PLAINTEXT :$KAFKA_PORT, SSL :$KAFKA_SSL_PORT, SASL :$KAFKA_SASL_PORT) in $RUN"
if ! env -u KAFKA_MTLS bash "$K" start "$RUN" >/dev/null 2>"$LOGS/kafka-start.log"; then
  cat "$LOGS/kafka-start.log" >&2
  RESULT[broker]=FAIL
  exit 1
fi
cat "$LOGS/kafka-start.log"
# shellcheck disable=SC1091
. "$RUN/kafka.env"
RESULT[broker]="ok ($LSST_KAFKA_BROKER_ADDR)"
say "broker: $(grep -m1 -o 'Kafka version: .*' "$RUN/broker.log" || echo "Kafka version: $KAFKA_VERSION (from kafka.env)")"

# --- registry and the mutual-TLS broker (in parallel) ----------------------
start_apicurio() {
  bash "$K" registry-start "$RUN" >/dev/null
}
if [ "${SALGO_REGISTRY:-apicurio}" = apicurio ]; then
  start_apicurio </dev/null >"$LOGS/registry-start.log" 2>&1 &
  REG_JOB=$!
fi
if [ "${SALGO_MTLS:-1}" != 0 ]; then
  RUN_MTLS=$(mktemp -d "${TMPDIR:-/tmp}/salgo-ci-kafka-mtls.XXXXXX")
  KAFKA_MTLS=1 KAFKA_PORT=$MTLS_BASE KAFKA_SSL_PORT=$((MTLS_BASE + 1)) KAFKA_SASL_PORT=$((MTLS_BASE + 2)) \
    KAFKA_CONTROLLER_PORT=$((MTLS_BASE + 3)) bash "$K" start "$RUN_MTLS" </dev/null >/dev/null 2>"$LOGS/kafka-mtls-start.log" &
  MTLS_JOB=$!
fi

if [ -n "$REG_JOB" ] && wait "$REG_JOB"; then
  # shellcheck disable=SC1091
  . "$RUN/registry.env"
  REGISTRY_KIND="Apicurio $(grep -m1 -o 'Apicurio Registry [0-9.]*' "$LOGS/registry-start.log" | cut -d' ' -f3 || true)"
  cat "$LOGS/registry-start.log"
else
  if [ -n "$REG_JOB" ]; then
    warn "Apicurio did not start; falling back to the SDK's own registry (srfake):"
    tail -n 20 "$LOGS/registry-start.log" >&2
    bash "$K" registry-stop "$RUN" >/dev/null 2>&1 || true
  fi
  go build -o "$LOGS/srfake-registry" ./internal/interop/cmd/registry/main.go
  "$LOGS/srfake-registry" -addr "127.0.0.1:$REGISTRY_PORT" </dev/null >"$LOGS/srfake.log" 2>&1 &
  SRFAKE_PID=$!
  export LSST_SCHEMA_REGISTRY_URL="http://127.0.0.1:$REGISTRY_PORT"
  for _ in $(seq 100); do
    curl -sf -o /dev/null "$LSST_SCHEMA_REGISTRY_URL/subjects" && break
    kill -0 "$SRFAKE_PID" 2>/dev/null || { warn "srfake registry exited"; exit 1; }
    sleep 0.2
  done
  curl -sf -o /dev/null "$LSST_SCHEMA_REGISTRY_URL/subjects" || { warn "srfake registry does not answer"; exit 1; }
  REGISTRY_KIND="srfake (fallback)"
fi
RESULT[registry]="ok ($REGISTRY_KIND at $LSST_SCHEMA_REGISTRY_URL)"
say "registry: $REGISTRY_KIND at $LSST_SCHEMA_REGISTRY_URL"

if [ -n "$MTLS_JOB" ]; then
  if wait "$MTLS_JOB"; then
    export SALGO_MTLS_ADDR SALGO_MTLS_TLS_DIR
    SALGO_MTLS_ADDR=$(sed -n 's/^export KAFKA_SSL_ADDR=//p' "$RUN_MTLS/kafka.env")
    SALGO_MTLS_TLS_DIR=$(sed -n 's/^export KAFKA_TLS_DIR=//p' "$RUN_MTLS/kafka.env")
    RESULT[broker-mtls]="ok ($SALGO_MTLS_ADDR)"
    say "mutual-TLS broker: SSL $SALGO_MTLS_ADDR (client certificate required)"
  else
    # Optional: the mutual-TLS tests then skip, saying why.
    warn "the KAFKA_MTLS=1 broker did not start; TestMutualTLS will skip:"
    tail -n 20 "$LOGS/kafka-mtls-start.log" >&2
    RESULT[broker-mtls]="did not start (mTLS tests skipped)"
  fi
fi

if ! wait "$VENV_JOB"; then
  cat "$LOGS/venv.log" >&2
  RESULT[python-venv]=FAIL
  exit 1
fi
SALGO_PYTHON=$(cat "$LOGS/venv.python")
export SALGO_PYTHON
RESULT[python-venv]="ok ($("$SALGO_PYTHON" -c 'import sys, confluent_kafka as c; print("Python", sys.version.split()[0], "confluent-kafka", c.__version__, "librdkafka", c.libversion()[0])'))"
say "python: ${RESULT[python-venv]#ok }, venv $(tail -n 1 "$LOGS/venv.log")"

# --- the suites -------------------------------------------------------------
LSST_TOPIC_SUBNAME="ci_$(date +%s)_$$"
export LSST_TOPIC_SUBNAME
if [ -z "${TS_XML_DIR:-}" ] && [ -d "$root/../shared/ts_xml" ]; then
  export TS_XML_DIR="$root/../shared/ts_xml"
fi
say "environment: LSST_KAFKA_BROKER_ADDR=$LSST_KAFKA_BROKER_ADDR LSST_SCHEMA_REGISTRY_URL=$LSST_SCHEMA_REGISTRY_URL LSST_TOPIC_SUBNAME=$LSST_TOPIC_SUBNAME TS_XML_DIR=${TS_XML_DIR:-unset}"

run_suite() {
  local name=$1 t=$SECONDS
  shift
  say "$name: $*"
  if "$@"; then
    RESULT[$name]="PASS ($((SECONDS - t)) s)"
  else
    RESULT[$name]="FAIL ($((SECONDS - t)) s)"
    FAILED=1
  fi
}
SUITES=1
# SALGO_SIGTERM_RUNS: examples/testcsc is started 30 times in a random
# initial state and sent SIGTERM at a random moment (exit 0, OFFLINE on the
# bus, the close hook's line), about 4 minutes.
run_suite "integration (runtime, remote, controller, sal, examples)" env SALGO_SIGTERM_RUNS=30 go test -count=1 -timeout 15m ./topics/ ./remote/ ./controller/ ./sal/... ./examples/smoke/ ./examples/testcsc/ ./examples/script/
# salctl's tests that run a CSC (or none) on the broker of LSST_* when it
# is set: state on a killed CSC (NOT RUNNING, exit 3), command to a CSC that
# is not running, FIELD=VALUE arguments, state -override. The package's
# other tests bring in-process brokers of their own.
# cmd/salctl is a module of its own: its tests run from its folder.
run_suite "salctl on real Kafka" go -C cmd/salctl test -count=1 -timeout 5m -run 'TestState_KilledCSC|TestState_NoCSC|TestCommand_NotRunning|TestCommand_NameValue|TestState_Override' ./
# The S3 store started in the background; a cold SeaweedFS build takes
# minutes, which the suites above overlap. Its s3.env exports
# S3_ENDPOINT_URL and the AWS_* test credentials to the suites below.
if [ -n "$S3_JOB" ]; then
  if wait "$S3_JOB"; then
    RUN_S3_OK=1
    # shellcheck disable=SC1091
    . "$RUN_S3/s3.env"
    RESULT[s3-store]="ok ($S3_STORE_VERSION at $S3_ENDPOINT_URL)"
    say "S3 store: $(grep -h 'ready at\|falling back\|built ' "$LOGS/s3-start.log" | sed 's/^s3.sh: //' | paste -sd ';' -)"
  else
    cat "$LOGS/s3-start.log" >&2
    RESULT[s3-store]=FAIL
    FAILED=1
    RUN_S3_OK=""
  fi
fi
run_suite "interop and security" go test -count=1 -timeout 15m -v ./internal/interop/
# The Large File Annex on the real object store (S3_ENDPOINT_URL and the
# AWS_* test credentials come from s3.env): a boto3 round trip, then the
# lfa tests that use what LSST_* and S3_ENDPOINT_URL name: TestBucket_RealStore,
# and TestSave_*: a Go CSC on the real broker saves to the real store and announces.
if [ -n "${RUN_S3_OK:-}" ]; then
  run_suite "S3 store round trip (boto3)" bash "$S3" check "$RUN_S3"
  run_suite "LFA on the S3 store" go test -count=1 -timeout 10m -v -run 'RealStore|TestSave|TestBucket_Objects' ./lfa/
fi

# --- broker faults (internal/faults) ----------------------------------------
# Broker restarts (SIGKILL and SIGTERM) and a leader failover on a three-node
# cluster. The tests start, kill and restart their own brokers with kafka.sh,
# each in its own run folder on its own ports (29092 and up, see
# SALGO_FAULTS_PORT), so the broker above keeps running untouched; they use
# the registry above. About 3 minutes. SALGO_FAULTS=0 skips them.
if [ "${SALGO_FAULTS:-1}" != 0 ]; then
  run_suite "broker faults (restart, leader failover)" env SALGO_FAULTS=1 go test -count=1 -timeout 12m -v ./internal/faults/
fi
exit $FAILED
