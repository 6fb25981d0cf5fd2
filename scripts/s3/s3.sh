#!/usr/bin/env bash
# s3.sh - an S3 object store on this machine for salgo's Large File Annex (LFA) tests, no Docker:
# SeaweedFS (a real, scale-out store; its `weed` binary built from the Go module proxy) or, as the
# fallback, moto's server (PyPI; the mock that ts_salobj's own tests use).
#
#   s3.sh install [auto|seaweedfs|moto]  build weed / make the boto3+moto venv into the cache
#                                     (auto: weed, and the venv that `check` and moto need)
#   s3.sh start  [RUN_DIR]            start the store of S3_KIND (auto: SeaweedFS, moto if weed
#                                     cannot be built); waits until a signed S3 write round trip
#                                     works; prints `export ...` lines
#   s3.sh stop   [--clean] [RUN_DIR]  SIGTERM, wait up to 30 s, then SIGKILL (--clean: wait 5 s
#                                     at most, then rm RUN_DIR)
#   s3.sh status [RUN_DIR]            exit 0 if the store of RUN_DIR runs and answers ListBuckets
#   s3.sh env    [RUN_DIR]            print the export lines again
#   s3.sh check  [RUN_DIR]            boto3 round trip (s3check.py: bucket, put/get, a ~20 MiB
#                                     multipart upload_fileobj, download, SHA-256) against the store
#
# stdout carries only the `export` lines of start/env; everything else goes to stderr.
# RUN_DIR defaults: start -> mktemp -d; others -> $S3_RUN_DIR, else the last started.
# See README.md beside this file for the environment variables that tune it.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REQ="$SCRIPT_DIR/requirements.txt"

S3_KIND="${S3_KIND:-auto}"
S3_HOST=127.0.0.1
S3_PORT_GIVEN="${S3_PORT:-}"
S3_PORT="${S3_PORT:-18333}"              # S3 API; SeaweedFS's own servers use S3_PORT+1 .. S3_PORT+7
S3_ACCESS_KEY="${S3_ACCESS_KEY:-salgo-test}"
S3_SECRET_KEY="${S3_SECRET_KEY:-salgo-test-secret}"
S3_REGION="${S3_REGION:-us-east-1}"
S3_START_TIMEOUT="${S3_START_TIMEOUT:-60}"
S3_STOP_TIMEOUT="${S3_STOP_TIMEOUT:-30}"
S3_CLEAN_STOP_TIMEOUT="${S3_CLEAN_STOP_TIMEOUT:-5}"
S3_BUILD_TIMEOUT="${S3_BUILD_TIMEOUT:-900}"
SEAWEEDFS_VERSION="${SEAWEEDFS_VERSION:-v0.0.0-20261109003541-7506e5f91cd6}"
CACHE_ROOT="${S3_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/salgo-s3}"
WEED="${WEED_BIN:-$CACHE_ROOT/seaweedfs/$SEAWEEDFS_VERSION/weed}"
LAST_RUN_FILE="$CACHE_ROOT/last-run-dir"
PROBE_BUCKET=salgo-s3sh-ready

log() { printf 's3.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
now_ms() { date +%s%3N; }
secs_since() { local d=$(( $(now_ms) - $1 )); printf '%d.%01d' $((d / 1000)) $(((d % 1000) / 100)); }
port_open() { (exec 3<>"/dev/tcp/$S3_HOST/$1") 2>/dev/null; }
pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# ----------------------------------------------------------------------------------------- install
# SeaweedFS: `go install github.com/seaweedfs/seaweedfs/weed@V` is refused (its go.mod has a replace
# directive), so the module is downloaded from the proxy and `weed` is built inside it, where the
# replace applies. The binary is cached per version; a failed or timed-out build leaves nothing.
install_seaweedfs() {
  if [ -x "$WEED" ]; then return 0; fi
  command -v go >/dev/null 2>&1 || { log "no go toolchain to build SeaweedFS"; return 1; }
  command -v timeout >/dev/null 2>&1 || { log "no timeout(1) to bound the SeaweedFS build"; return 1; }
  local dest t0 moddir blog tmp rc
  dest="$(dirname "$WEED")"
  mkdir -p "$dest"
  exec 8>"$dest/.build.lock"
  flock 8                      # two starts at once: the second waits, then finds the binary
  if [ -x "$WEED" ]; then exec 8>&-; return 0; fi
  blog="$dest/build.log"
  t0=$(now_ms)
  log "building SeaweedFS weed $SEAWEEDFS_VERSION from the Go module proxy (at most ${S3_BUILD_TIMEOUT}s; log: $blog)"
  if ! moddir="$(GOWORK=off go mod download -json "github.com/seaweedfs/seaweedfs@$SEAWEEDFS_VERSION" 2>"$blog" |
                sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')" || [ -z "$moddir" ] || [ ! -d "$moddir/weed" ]; then
    tail -n 20 "$blog" >&2
    exec 8>&-
    log "could not download github.com/seaweedfs/seaweedfs@$SEAWEEDFS_VERSION"
    return 1
  fi
  tmp="$(mktemp "$dest/.weed.XXXXXX")"
  rc=0
  (cd "$moddir" && GOWORK=off timeout "$S3_BUILD_TIMEOUT" go build \
      -ldflags "-s -w -X github.com/seaweedfs/seaweedfs/weed/util/version.COMMIT=${SEAWEEDFS_VERSION##*-}" \
      -o "$tmp" ./weed) </dev/null >>"$blog" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    rm -f "$tmp"
    tail -n 20 "$blog" >&2
    exec 8>&-
    [ "$rc" -eq 124 ] && log "the SeaweedFS build did not finish within ${S3_BUILD_TIMEOUT}s"
    log "building SeaweedFS failed (exit $rc)"
    return 1
  fi
  chmod 755 "$tmp" && mv -f "$tmp" "$WEED"
  exec 8>&-
  log "built $WEED ($(du -h "$WEED" | cut -f1)) in $(secs_since "$t0") s"
}

# The venv with boto3 (for `check` and readiness of moto) and moto[server], from requirements.txt,
# cached per Python version and file hash. S3_PYTHON: use that interpreter instead (it must import
# boto3, and moto.server for S3_KIND=moto).
venv_python() {
  if [ -n "${S3_PYTHON:-}" ]; then printf '%s\n' "$S3_PYTHON"; return 0; fi
  local py ver hash dir base
  py="$(command -v python3 || true)"
  if [ -z "$py" ] || ! "$py" -c 'import venv, ensurepip' 2>/dev/null; then py=/usr/bin/python3; fi
  [ -x "$py" ] || { log "no python3 to make the moto venv"; return 1; }
  ver="$("$py" -c 'import sys; print(sys.version.split()[0])')"
  hash="$({ cat "$REQ"; echo "$ver"; } | sha256sum | cut -c1-16)"
  base="$CACHE_ROOT/venv"
  dir="$base/py$ver-$hash"
  mkdir -p "$base"
  (
    flock 9
    if [ -f "$dir/.complete" ] && "$dir/bin/python" -c 'import boto3, moto.server' 2>/dev/null; then exit 0; fi
    local t0; t0=$(now_ms)
    log "making $dir (pip install -r $REQ)"
    rm -rf "$dir"
    "$py" -m venv "$dir" >&2 &&
      "$dir/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQ" </dev/null >&2 ||
      { rm -rf "$dir"; log "pip install -r $REQ failed"; exit 1; }
    touch "$dir/.complete"
    log "made the venv in $(secs_since "$t0") s"
  ) 9>"$base/.lock" || return 1
  printf '%s\n' "$dir/bin/python"
}

cmd_install() {
  case "${1:-auto}" in
    seaweedfs) install_seaweedfs || die "SeaweedFS is not available" ;;
    moto) venv_python >/dev/null || die "the moto venv could not be made" ;;
    auto)
      venv_python >/dev/null || die "the moto venv could not be made"
      install_seaweedfs || log "SeaweedFS is not available; start falls back to moto"
      ;;
    *) die "install: unknown kind '$1' (auto, seaweedfs or moto)" ;;
  esac
}

# ----------------------------------------------------------------------------------------- helpers
resolve_run_dir() {  # $1: explicit dir or empty
  local dir="${1:-${S3_RUN_DIR:-}}"
  if [ -z "$dir" ] && [ -f "$LAST_RUN_FILE" ]; then dir="$(cat "$LAST_RUN_FILE")"; fi
  [ -n "$dir" ] || die "no RUN_DIR given, S3_RUN_DIR unset and no previous start recorded"
  [ -d "$dir" ] || die "RUN_DIR $dir does not exist"
  (cd "$dir" && pwd)
}

# The settings a run was started with (RUN_DIR/s3.conf), so stop/env/check see the same port.
load_conf() {
  [ -f "$1/s3.conf" ] || die "$1 holds no store (no s3.conf; use: s3.sh start $1)"
  # shellcheck disable=SC1091
  . "$1/s3.conf"
}

# The pid in RUN_DIR/s3.pid, if that process is still this run's store (guards against pid reuse).
store_pid() {
  local dir="$1" pid cmd
  pid="$(cat "$dir/s3.pid" 2>/dev/null)" || return 1
  pid_alive "$pid" || return 1
  cmd="$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)" || return 1
  case "$RUN_KIND" in
    seaweedfs) [[ "$cmd" == *"weed"*" -s3.port=$RUN_PORT "* ]] || return 1 ;;
    moto) [[ "$cmd" == *"moto_server"*"-p $RUN_PORT"* ]] || return 1 ;;
    *) return 1 ;;
  esac
  printf '%s\n' "$pid"
}

endpoint() { printf 'http://%s:%s\n' "$S3_HOST" "$RUN_PORT"; }

# One S3 request signed with SigV4 (curl --aws-sigv4, curl >= 7.75): METHOD PATH [DATA]. Prints the
# HTTP status; the body goes to RUN_DIR/probe.out.
s3_req() {
  local method="$1" path="$2" data="${3-}" args=()
  # The payload's SHA-256 in x-amz-content-sha256 (signed): SeaweedFS checks it, curl 7.88 does not send it.
  args=(-H "x-amz-content-sha256: $(printf '%s' "$data" | sha256sum | cut -d' ' -f1)")
  [ $# -ge 3 ] && args+=(--data-binary "$data" -H 'Content-Type: text/plain')
  curl -sS -o "$RUN_DIR_CUR/probe.out" -w '%{http_code}' --max-time 15 -X "$method" "${args[@]}" \
    --aws-sigv4 "aws:amz:$RUN_REGION:s3" --user "$RUN_ACCESS_KEY:$RUN_SECRET_KEY" \
    "$(endpoint)$path" 2>>"$RUN_DIR_CUR/probe.err" || echo 000
}

# Ready = a signed ListBuckets answers 200 and a probe bucket takes, returns and deletes an object
# (a store that lists before its volumes accept writes is not ready yet).
probe_ready() {
  local code
  code="$(s3_req GET /)"; [ "$code" = 200 ] || return 1
  code="$(s3_req PUT "/$PROBE_BUCKET")"; case "$code" in 200|409) ;; *) return 1 ;; esac
  code="$(s3_req PUT "/$PROBE_BUCKET/probe.txt" "s3.sh readiness probe")"; [ "$code" = 200 ] || return 1
  code="$(s3_req GET "/$PROBE_BUCKET/probe.txt")"; [ "$code" = 200 ] || return 1
  grep -q 's3.sh readiness probe' "$RUN_DIR_CUR/probe.out" || return 1
  code="$(s3_req DELETE "/$PROBE_BUCKET/probe.txt")"; [ "$code" = 204 ] || [ "$code" = 200 ] || return 1
  code="$(s3_req DELETE "/$PROBE_BUCKET")"; [ "$code" = 204 ] || [ "$code" = 200 ] || return 1
}

print_env() {
  local dir="$1" pid
  pid="$(cat "$dir/s3.pid" 2>/dev/null || true)"
  # %q: a value with spaces or quotes stays one word under eval / `.`
  printf 'export S3_ENDPOINT_URL=%q\n' "$(endpoint)"
  printf 'export AWS_ACCESS_KEY_ID=%q\n' "$RUN_ACCESS_KEY"
  printf 'export AWS_SECRET_ACCESS_KEY=%q\n' "$RUN_SECRET_KEY"
  printf 'export AWS_DEFAULT_REGION=%q\n' "$RUN_REGION"
  printf 'export AWS_REGION=%q\n' "$RUN_REGION"
  printf 'export AWS_EC2_METADATA_DISABLED=true\n'
  printf 'export S3_RUN_DIR=%q\n' "$dir"
  printf 'export S3_PID=%q\n' "$pid"
  printf 'export S3_KIND=%q\n' "$RUN_KIND"
  printf 'export S3_STORE_VERSION=%q\n' "$RUN_VERSION"
  printf 'export S3_CREDENTIALS_FILE=%q\n' "$dir/aws/credentials"
  printf 'export S3_PROFILE=salgo-s3\n'
}

# Pick the port set: S3_PORT .. S3_PORT+7 all free; when S3_PORT was not given, shift by 1000s.
pick_ports() {
  local off p busy
  for off in 0 1000 2000 3000 4000 5000 6000 7000 8000 9000; do
    busy=""
    for p in $(seq $((S3_PORT + off)) $((S3_PORT + off + 7))); do
      if port_open "$p"; then busy=$p; break; fi
    done
    if [ -z "$busy" ]; then
      [ "$off" = 0 ] || log "ports $S3_PORT.. in use: shifting by $off"
      RUN_PORT=$((S3_PORT + off))
      return 0
    fi
    [ -n "$S3_PORT_GIVEN" ] && die "port $S3_HOST:$busy is already in use (another store? s3.sh stop, or set S3_PORT)"
  done
  die "no free set of 8 ports at $S3_PORT + a multiple of 1000"
}

# ----------------------------------------------------------------------------------------- start
start_seaweedfs() {  # $1 run dir; the store's servers on RUN_PORT+1..+7, data and logs in RUN_DIR
  local dir="$1" p="$RUN_PORT"
  mkdir -p "$dir/data"
  umask 077
  cat > "$dir/s3.json" <<EOF
{
  "identities": [
    {
      "name": "salgo-test",
      "credentials": [{"accessKey": "$RUN_ACCESS_KEY", "secretKey": "$RUN_SECRET_KEY"}],
      "actions": ["Admin", "Read", "List", "Tagging", "Write"]
    }
  ]
}
EOF
  umask 022
  RUN_VERSION="$("$WEED" version 2>/dev/null | sed -n 's/^version *[0-9]*[A-Z]* *\([0-9][0-9.]*\).*/\1/p' | head -n 1)"
  RUN_VERSION="seaweedfs-${RUN_VERSION:-?}-${SEAWEEDFS_VERSION##*-}"
  # One process: master, volume, filer and the S3 gateway (weed server -s3). No telemetry, no
  # metrics, no WebDAV/SFTP/IAM/MQ; every port fixed inside the set, bound to loopback only.
  # shellcheck disable=SC2086
  setsid nohup "$WEED" -logtostderr=true server -ip="$S3_HOST" -ip.bind="$S3_HOST" -dir="$dir/data" \
    -master.port=$((p + 1)) -master.port.grpc=$((p + 2)) -master.telemetry=false \
    -master.volumeSizeLimitMB="${SEAWEEDFS_VOLUME_MB:-256}" \
    -volume.port=$((p + 3)) -volume.port.grpc=$((p + 4)) -volume.max=0 -volume.preStopSeconds=0 \
    -filer -filer.port=$((p + 5)) -filer.port.grpc=$((p + 6)) -filer.localSocket="$dir/filer.sock" \
    -s3 -s3.port="$p" -s3.port.grpc=$((p + 7)) -s3.config="$dir/s3.json" -s3.localSocket="$dir/s3.sock" \
    -s3.port.iceberg=0 -s3.port.lance=0 -s3.iam=false \
    ${SEAWEEDFS_ARGS:-} \
    </dev/null >"$dir/s3.log" 2>&1 &
  RUN_PID=$!
}

start_moto() {  # $1 run dir; moto keeps objects in memory, spilling large ones to TMPDIR
  local dir="$1" py="$MOTO_PY"
  RUN_VERSION="moto-$("$py" -c 'import moto; print(moto.__version__)')"
  mkdir -p "$dir/tmp"
  TMPDIR="$dir/tmp" setsid nohup "$(dirname "$py")/moto_server" -H "$S3_HOST" -p "$RUN_PORT" \
    </dev/null >"$dir/s3.log" 2>&1 &
  RUN_PID=$!
}

cmd_start() {
  local dir="${1:-}" pid tstart kind
  tstart=$(now_ms)
  command -v curl >/dev/null 2>&1 || die "curl is needed (apt-get install curl)"
  curl --help all 2>/dev/null | grep -q -- '--aws-sigv4' || die "curl $(curl --version | head -n1 | cut -d' ' -f2) lacks --aws-sigv4 (7.75+ needed)"
  case "$S3_KIND" in
    seaweedfs) install_seaweedfs || die "SeaweedFS is not available (S3_KIND=seaweedfs); S3_KIND=auto falls back to moto"
               kind=seaweedfs ;;
    moto) kind=moto ;;
    auto) if install_seaweedfs; then kind=seaweedfs; else log "SeaweedFS is not available: falling back to moto's server"; kind=moto; fi ;;
    *) die "S3_KIND=$S3_KIND: want auto, seaweedfs or moto" ;;
  esac
  if [ "$kind" = moto ]; then
    MOTO_PY="$(venv_python)" || die "moto's venv could not be made"
    "$MOTO_PY" -c 'import moto.server' 2>/dev/null || die "$MOTO_PY cannot import moto.server (S3_PYTHON needs moto[server])"
  fi
  if [ -n "$dir" ] && [ -f "$dir/s3.conf" ]; then
    load_conf "$dir"
    if pid="$(store_pid "$dir")"; then die "a store already runs for $dir (pid $pid); use: s3.sh stop $dir"; fi
  fi
  pick_ports
  if [ -z "$dir" ]; then
    dir="$(mktemp -d "${TMPDIR:-/tmp}/salgo-s3.XXXXXX")"
  else
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
  fi
  RUN_KIND=$kind RUN_ACCESS_KEY=$S3_ACCESS_KEY RUN_SECRET_KEY=$S3_SECRET_KEY RUN_REGION=$S3_REGION
  RUN_DIR_CUR="$dir"
  mkdir -p "$dir/aws"
  ( umask 077
    printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n\n[salgo-s3]\naws_access_key_id = %s\naws_secret_access_key = %s\n' \
      "$RUN_ACCESS_KEY" "$RUN_SECRET_KEY" "$RUN_ACCESS_KEY" "$RUN_SECRET_KEY" > "$dir/aws/credentials" )
  [ -f "$dir/s3.log" ] && mv -f "$dir/s3.log" "$dir/s3.log.$(date +%Y%m%d-%H%M%S)"
  : > "$dir/probe.err"

  local t1; t1=$(now_ms)
  # setsid + nohup + closed stdin: the store outlives this script, holds no caller's pipe open
  # (so `$(s3.sh start)` returns) and is not hit by the caller's terminal signals.
  case "$kind" in
    seaweedfs) start_seaweedfs "$dir" ;;
    moto) start_moto "$dir" ;;
  esac
  echo "$RUN_PID" > "$dir/s3.pid"
  ( umask 077
    printf 'RUN_KIND=%q\nRUN_PORT=%q\nRUN_ACCESS_KEY=%q\nRUN_SECRET_KEY=%q\nRUN_REGION=%q\nRUN_VERSION=%q\n' \
      "$RUN_KIND" "$RUN_PORT" "$RUN_ACCESS_KEY" "$RUN_SECRET_KEY" "$RUN_REGION" "$RUN_VERSION" > "$dir/s3.conf" )
  mkdir -p "$CACHE_ROOT" && echo "$dir" > "$LAST_RUN_FILE"

  local deadline=$(( $(now_ms) + S3_START_TIMEOUT * 1000 ))
  until probe_ready; do
    if ! pid_alive "$RUN_PID"; then
      tail -n 40 "$dir/s3.log" >&2
      die "the $kind store exited during startup (log: $dir/s3.log)"
    fi
    if [ "$(now_ms)" -gt "$deadline" ]; then
      tail -n 40 "$dir/s3.log" >&2
      tail -n 5 "$dir/probe.err" >&2
      stop_pid "$RUN_PID"
      die "the $kind store did not complete a signed S3 round trip within ${S3_START_TIMEOUT}s (log: $dir/s3.log)"
    fi
    sleep 0.2
  done
  log "$RUN_VERSION ready at $(endpoint) in $(secs_since "$t1") s (pid $RUN_PID, log $dir/s3.log); s3.sh start took $(secs_since "$tstart") s in all"
  print_env "$dir" | tee "$dir/s3.env"
}

# ----------------------------------------------------------------------------------------- stop etc.
stop_pid() {  # SIGTERM, wait $2 (default S3_STOP_TIMEOUT) seconds, SIGKILL
  local pid="$1" wait="${2:-$S3_STOP_TIMEOUT}" i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < wait * 5; i++)); do
    pid_alive "$pid" || return 0
    sleep 0.2
  done
  log "pid $pid still alive after ${wait}s; SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do pid_alive "$pid" || return 0; sleep 0.1; done
}

cmd_stop() {
  local clean=0 dir pid t0
  if [ "${1:-}" = "--clean" ]; then clean=1; shift; fi
  dir="$(resolve_run_dir "${1:-}")"
  if [ -f "$dir/s3.conf" ]; then
    load_conf "$dir"
    if pid="$(store_pid "$dir")"; then
      t0=$(now_ms)
      # SeaweedFS's filer spends ~15 s of a SIGTERM trying to flush its metadata log; with --clean
      # the data goes anyway, so it gets S3_CLEAN_STOP_TIMEOUT (5 s) before SIGKILL.
      if [ "$clean" = 1 ]; then stop_pid "$pid" "$S3_CLEAN_STOP_TIMEOUT"; else stop_pid "$pid"; fi
      log "$RUN_KIND pid $pid stopped in $(secs_since "$t0") s"
    else
      log "no store running for $dir"
    fi
    if [ "$RUN_KIND" = seaweedfs ] && ! pid_alive "${pid:-}"; then
      # weed's same-host gRPC sockets are fixed /tmp paths named by port; a SIGKILL leaves them.
      local svc port
      for svc in master:2 volume:4 filer:6 s3:7; do
        port=$((RUN_PORT + ${svc#*:}))
        rm -f "/tmp/seaweedfs-${svc%%:*}-grpc-$port.sock"
      done
    fi
  else
    log "no store was started in $dir"
  fi
  rm -f "$dir/s3.pid"
  if [ "$clean" = 1 ]; then
    rm -rf "$dir"
    log "removed $dir"
    if [ "$(cat "$LAST_RUN_FILE" 2>/dev/null)" = "$dir" ]; then rm -f "$LAST_RUN_FILE"; fi
  fi
  return 0
}

cmd_status() {
  local dir pid code
  dir="$(resolve_run_dir "${1:-}")"
  load_conf "$dir"
  RUN_DIR_CUR="$dir"
  if ! pid="$(store_pid "$dir")"; then log "no store running for $dir"; return 1; fi
  code="$(s3_req GET /)"
  if [ "$code" != 200 ]; then log "$RUN_KIND pid $pid runs for $dir but ListBuckets answered $code"; return 1; fi
  log "$RUN_VERSION running for $dir at $(endpoint) (pid $pid)"
}

cmd_env() {
  local dir
  dir="$(resolve_run_dir "${1:-}")"
  load_conf "$dir"
  print_env "$dir"
}

cmd_check() {
  local dir py
  dir="$(resolve_run_dir "${1:-}")"
  load_conf "$dir"
  py="$(venv_python)" || die "no Python with boto3 for the check"
  ( eval "$(print_env "$dir")"; exec "$py" "$SCRIPT_DIR/s3check.py" ) >&2
}

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; }

main() {
  local cmd="${1:-}"
  [ $# -gt 0 ] && shift
  case "$cmd" in
    install) cmd_install "${1:-auto}" ;;
    start) cmd_start "${1:-}" ;;
    stop) cmd_stop "$@" ;;
    status) cmd_status "${1:-}" ;;
    env) cmd_env "${1:-}" ;;
    check) cmd_check "${1:-}" ;;
    -h|--help|help) usage ;;
    *) usage; exit 2 ;;
  esac
}

main "$@"
