#!/usr/bin/env bash
# kafka.sh - a real, single-node Apache Kafka 4.x broker (KRaft, combined broker+controller) for
# salgo's integration tests, assembled from Maven Central jars. No Docker, no tarball download.
#
#   kafka.sh install                   resolve the broker + tools jars into the cache (idempotent)
#   kafka.sh start   [RUN_DIR]         format (first time) and start; prints `export ...` lines
#   kafka.sh stop    [--clean] [RUN_DIR]  SIGTERM, wait up to 30 s, then SIGKILL (--clean: rm RUN_DIR);
#                                      also stops a registry started in the same RUN_DIR
#   kafka.sh restart [RUN_DIR]         stop + start on the same data (no re-format)
#   kafka.sh kill    [RUN_DIR]         SIGKILL at once (fault tests); `start RUN_DIR` brings it back
#   kafka.sh status  [RUN_DIR]         exit 0 if the broker of RUN_DIR runs
#   kafka.sh env     [RUN_DIR]         print the export lines again
#   kafka.sh tool CLASS [ARGS...]      run a Kafka CLI class on the cached classpath, e.g.
#                                      org.apache.kafka.tools.TopicCommand --bootstrap-server 127.0.0.1:19092 --list
#   kafka.sh cluster-start N [RUN_DIR] N combined broker+controller nodes (static N-voter quorum,
#                                      PLAINTEXT only) on KAFKA_PORT+10*(I-1); replication min(N,3),
#                                      min.insync.replicas 2 (N>=3); prints `export ...` lines
#   kafka.sh cluster-stop [--clean] [RUN_DIR]   stop every node (--clean: rm RUN_DIR)
#   kafka.sh cluster-status [RUN_DIR]  exit 0 if every node runs
#   kafka.sh node-kill|node-stop|node-start I [RUN_DIR]   SIGKILL / SIGTERM / restart node I on its data
#   kafka.sh registry-install          fetch Apicurio Registry (Confluent-compatible API) into the cache
#   kafka.sh registry-start [DIR]      run it on 127.0.0.1:18081 (in-memory, BACKWARD global compatibility)
#   kafka.sh registry-stop  [DIR]
#
# stdout carries only the `export` lines of start/restart/env/registry-start; everything else goes
# to stderr. RUN_DIR defaults: start -> mktemp -d; others -> $KAFKA_RUN_DIR, else the last started.
# See README.md beside this file for the environment variables that tune it.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
POM="$SCRIPT_DIR/pom.xml"

KAFKA_VERSION="${KAFKA_VERSION:-4.4.0}"
LOG4J_VERSION="${KAFKA_LOG4J_VERSION:-2.25.5}"
CACHE_ROOT="${KAFKA_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/salgo-kafka}"
KAFKA_LIBS="${KAFKA_LIBS:-$CACHE_ROOT/$KAFKA_VERSION/libs}"

KAFKA_HOST=127.0.0.1
KAFKA_PORT="${KAFKA_PORT:-19092}"                   # PLAINTEXT
KAFKA_SSL_PORT="${KAFKA_SSL_PORT:-19093}"           # SSL
KAFKA_SASL_PORT="${KAFKA_SASL_PORT:-19094}"         # SASL_PLAINTEXT (SCRAM)
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-19095}"
KAFKA_SASL_USER="${KAFKA_SASL_USER:-salgo}"
KAFKA_SASL_PASSWORD="${KAFKA_SASL_PASSWORD:-salgo-secret}"
KAFKA_TLS_PASSWORD="${KAFKA_TLS_PASSWORD:-salgo-tls}"   # store password of the generated .p12 files
KAFKA_START_TIMEOUT="${KAFKA_START_TIMEOUT:-90}"
KAFKA_STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-30}"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx768m}"
KAFKA_JVM_PERFORMANCE_OPTS="${KAFKA_JVM_PERFORMANCE_OPTS:--server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true}"

REGISTRY_VERSION="${REGISTRY_VERSION:-3.3.3}"
REGISTRY_PORT="${REGISTRY_PORT:-18081}"
REGISTRY_MGMT_PORT="${REGISTRY_MGMT_PORT:-18082}"
REGISTRY_COMPAT="${REGISTRY_COMPAT:-BACKWARD}"
REGISTRY_START_TIMEOUT="${REGISTRY_START_TIMEOUT:-180}"
REGISTRY_HOME="${REGISTRY_HOME:-$CACHE_ROOT/apicurio/$REGISTRY_VERSION}"

LAST_RUN_FILE="$CACHE_ROOT/last-run-dir"
LAST_REGISTRY_FILE="$CACHE_ROOT/last-registry-dir"

log() { printf 'kafka.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
now_ms() { date +%s%3N; }
secs_since() { local d=$(( $(now_ms) - $1 )); printf '%d.%01d' $((d / 1000)) $(((d % 1000) / 100)); }

JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
KEYTOOL="${JAVA_HOME:+$JAVA_HOME/bin/}keytool"

# Tools that a fresh machine of this project already has; as root with apt-get, install what lacks.
ensure_tools() {
  local missing=() t
  for t in "$@"; do
    case "$t" in
      java) command -v "$JAVA" >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless) ;;
      keytool) command -v "$KEYTOOL" >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless) ;;
      mvn) command -v mvn >/dev/null 2>&1 || missing+=(maven) ;;
      openssl) command -v openssl >/dev/null 2>&1 || missing+=(openssl) ;;
      curl) command -v curl >/dev/null 2>&1 || missing+=(curl) ;;
      tar) command -v tar >/dev/null 2>&1 || missing+=(tar) ;;
    esac
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing missing packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } </dev/null >&2 ||
      die "apt-get install ${missing[*]} failed"
  else
    die "missing tools (Debian packages: ${missing[*]}); install them first"
  fi
}

java_major() {
  "$JAVA" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}'
}

check_java() {
  ensure_tools java
  local v; v="$(java_major)"
  [ "${v%%.*}" -ge 17 ] 2>/dev/null || die "Kafka 4.x brokers need Java 17+, $JAVA is ${v:-unknown} (set JAVA_HOME)"
}

# ----------------------------------------------------------------------------------------- install
libs_stamp() {
  printf '%s %s %s\n' "$KAFKA_VERSION" "$LOG4J_VERSION" "$(sha256sum "$POM" | cut -c1-16)"
}

libs_complete() {
  [ -f "$KAFKA_LIBS/.complete" ] && [ "$(cat "$KAFKA_LIBS/.complete")" = "$(libs_stamp)" ]
}

check_libs() {
  local dir="$1" p
  for p in "kafka_2.13-$KAFKA_VERSION.jar" "kafka-server-$KAFKA_VERSION.jar" "kafka-tools-$KAFKA_VERSION.jar" \
           "kafka-clients-$KAFKA_VERSION.jar" log4j-core- log4j-api- log4j-slf4j-impl- slf4j-api-1. scala-library-2.13.; do
    compgen -G "$dir/$p*" >/dev/null || { log "classpath in $dir lacks $p*"; return 1; }
  done
  if compgen -G "$dir/log4j-slf4j2-impl-*" >/dev/null; then log "classpath has log4j-slf4j2-impl (SLF4J 2 binding)"; return 1; fi
}

count_jars() { local f n=0; for f in "$1"/*.jar; do [ -e "$f" ] && n=$((n + 1)); done; echo "$n"; }

cmd_install() {  # $1=quiet: say nothing when the cache is already complete
  if libs_complete; then
    [ "${1:-}" = quiet ] || log "jars already in $KAFKA_LIBS ($(count_jars "$KAFKA_LIBS") jars)"
    return 0
  fi
  ensure_tools java mvn
  check_java
  local t0 tmp mvnlog
  t0=$(now_ms)
  mkdir -p "$(dirname "$KAFKA_LIBS")"
  if command -v flock >/dev/null 2>&1; then   # two installs at once: the second waits, then finds it done
    exec 9>"$(dirname "$KAFKA_LIBS")/.install.lock"
    flock 9
    if libs_complete; then exec 9>&-; return 0; fi
  fi
  tmp="$(mktemp -d "$(dirname "$KAFKA_LIBS")/.libs.XXXXXX")"
  mvnlog="$(dirname "$KAFKA_LIBS")/mvn-install.log"
  log "resolving org.apache.kafka:kafka_2.13:$KAFKA_VERSION + kafka-tools from Maven Central (log: $mvnlog)"
  # shellcheck disable=SC2086
  if ! mvn -B -ntp ${KAFKA_MVN_ARGS:-} -f "$POM" -Dkafka.version="$KAFKA_VERSION" -Dlog4j.version="$LOG4J_VERSION" \
        dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp" </dev/null >"$mvnlog" 2>&1; then
    tail -n 40 "$mvnlog" >&2
    rm -rf "$tmp"
    die "mvn could not resolve the Kafka $KAFKA_VERSION classpath"
  fi
  check_libs "$tmp" || { rm -rf "$tmp"; die "incomplete classpath (see $mvnlog)"; }
  libs_stamp > "$tmp/.complete"
  rm -rf "$KAFKA_LIBS"
  mv "$tmp" "$KAFKA_LIBS"
  log "installed $(count_jars "$KAFKA_LIBS") jars ($(du -sh "$KAFKA_LIBS" | cut -f1)) in $(secs_since "$t0") s"
  exec 9>&- 2>/dev/null || true
}

# ----------------------------------------------------------------------------------------- helpers
port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# The pid in RUN_DIR/kafka.pid, if that process is still this run's broker (guards against pid reuse).
broker_pid() {
  local dir="$1" pid cmd
  pid="$(cat "$dir/kafka.pid" 2>/dev/null)" || return 1
  pid_alive "$pid" || return 1
  cmd="$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)" || return 1
  [[ "$cmd" == *"kafka.Kafka $dir/server.properties"* ]] || return 1
  printf '%s\n' "$pid"
}

resolve_run_dir() {  # $1: explicit dir or empty
  local dir="${1:-${KAFKA_RUN_DIR:-}}"
  if [ -z "$dir" ] && [ -f "$LAST_RUN_FILE" ]; then dir="$(cat "$LAST_RUN_FILE")"; fi
  [ -n "$dir" ] || die "no RUN_DIR given, KAFKA_RUN_DIR unset and no previous start recorded"
  [ -d "$dir" ] || die "RUN_DIR $dir does not exist"
  (cd "$dir" && pwd)
}

random_cluster_id() {  # base64url of 16 random bytes, 22 chars, not starting with '-' (as Kafka's Uuid)
  local id
  while :; do
    id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    [ "${id:0:1}" != "-" ] && [ ${#id} -eq 22 ] && break
  done
  printf '%s\n' "$id"
}

write_tools_log4j() {  # WARN and above to stderr, like Kafka's config/tools-log4j2.yaml
  cat > "$1" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN">
  <Appenders>
    <Console name="STDERR" target="SYSTEM_ERR">
      <PatternLayout pattern="[%d] %p %m (%c)%n"/>
    </Console>
  </Appenders>
  <Loggers>
    <Root level="WARN"><AppenderRef ref="STDERR"/></Root>
  </Loggers>
</Configuration>
EOF
}

write_broker_log4j() {  # console only; kafka.sh sends the console to RUN_DIR/broker.log
  cat > "$1" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN">
  <Appenders>
    <Console name="STDOUT" target="SYSTEM_OUT">
      <PatternLayout pattern="[%d] %p %m (%c)%n"/>
    </Console>
  </Appenders>
  <Loggers>
    <Logger name="kafka.request.logger" level="WARN"/>
    <Logger name="state.change.logger" level="WARN"/>
    <Logger name="kafka.controller" level="INFO"/>
    <Logger name="kafka.log.LogCleaner" level="INFO"/>
    <Logger name="org.apache.kafka.controller" level="INFO"/>
    <Root level="INFO"><AppenderRef ref="STDOUT"/></Root>
  </Loggers>
</Configuration>
EOF
}

# ----------------------------------------------------------------------------------------- TLS
# A CA, a broker certificate for 127.0.0.1/localhost (SAN) and a client certificate signed by the
# same CA. Clients get PEM files (ca.pem, client.pem, client-key.pem as unencrypted PKCS#8) and,
# for Java clients, PKCS#12 stores (truststore.p12, client.p12; password $KAFKA_TLS_PASSWORD).
gen_tls() {
  local d="$1" pw="$KAFKA_TLS_PASSWORD"
  [ -f "$d/broker.p12" ] && [ -f "$d/truststore.p12" ] && [ -f "$d/client.pem" ] && return 0
  ensure_tools openssl keytool
  mkdir -p "$d"
  (
    set -e
    umask 077
    cd "$d"
    rm -f ./*.pem ./*.p12 ./*.csr ./*.srl
    cat > openssl.cnf <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = placeholder
[ca_ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth,clientAuth
subjectAltName = IP:127.0.0.1,DNS:localhost,IP:::1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[client_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF
    openssl req -x509 -new -newkey rsa:2048 -nodes -sha256 -days 3650 -config openssl.cnf -extensions ca_ext \
      -subj "/O=salgo-test/CN=salgo test CA" -keyout ca-key.pem -out ca.pem
    openssl req -new -newkey rsa:2048 -nodes -sha256 -config openssl.cnf -subj "/O=salgo-test/CN=localhost" \
      -keyout broker-key.pem -out broker.csr
    openssl x509 -req -sha256 -days 3650 -in broker.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -CAserial ca.srl \
      -extfile openssl.cnf -extensions server_ext -out broker.pem
    openssl req -new -newkey rsa:2048 -nodes -sha256 -config openssl.cnf -subj "/O=salgo-test/CN=salgo-client" \
      -keyout client-key.pem -out client.csr
    openssl x509 -req -sha256 -days 3650 -in client.csr -CA ca.pem -CAkey ca-key.pem -CAserial ca.srl \
      -extfile openssl.cnf -extensions client_ext -out client.pem
    openssl pkcs12 -export -in broker.pem -inkey broker-key.pem -certfile ca.pem -name broker \
      -out broker.p12 -passout "pass:$pw"
    openssl pkcs12 -export -in client.pem -inkey client-key.pem -certfile ca.pem -name client \
      -out client.p12 -passout "pass:$pw"
    "$KEYTOOL" -importcert -noprompt -alias salgo-test-ca -file ca.pem -keystore truststore.p12 \
      -storetype PKCS12 -storepass "$pw" >/dev/null 2>&1
    cat client.pem ca.pem > client-chain.pem
    rm -f ./*.csr
    chmod 644 ca.pem client.pem client-chain.pem
    chmod 600 ./*key.pem ./*.p12
  ) </dev/null >"$d/gen.log" 2>&1 || { cat "$d/gen.log" >&2; die "TLS material generation failed"; }
}

# ----------------------------------------------------------------------------------------- config
write_server_properties() {
  local dir="$1" tls="$1/tls" client_auth="${KAFKA_SSL_CLIENT_AUTH:-none}"
  case "${KAFKA_MTLS:-0}" in 1|true|yes|on) client_auth=required ;; esac
  cat > "$dir/server.properties" <<EOF
# generated by scripts/kafka/kafka.sh for a single-node test broker (KRaft, static quorum)
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$KAFKA_HOST:$KAFKA_CONTROLLER_PORT
controller.listener.names=CONTROLLER
listeners=PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT,SSL://$KAFKA_HOST:$KAFKA_SSL_PORT,SASL_PLAINTEXT://$KAFKA_HOST:$KAFKA_SASL_PORT,CONTROLLER://$KAFKA_HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$KAFKA_HOST:$KAFKA_PORT,SSL://$KAFKA_HOST:$KAFKA_SSL_PORT,SASL_PLAINTEXT://$KAFKA_HOST:$KAFKA_SASL_PORT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data

# SASL/SCRAM on the SASL_PLAINTEXT listener (users are created by StorageTool format --add-scram)
sasl.enabled.mechanisms=SCRAM-SHA-512,SCRAM-SHA-256
listener.name.sasl_plaintext.sasl.enabled.mechanisms=SCRAM-SHA-512,SCRAM-SHA-256
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;

# TLS on the SSL listener (client auth: $client_auth; KAFKA_MTLS=1 makes it required)
listener.name.ssl.ssl.keystore.type=PKCS12
listener.name.ssl.ssl.keystore.location=$tls/broker.p12
listener.name.ssl.ssl.keystore.password=$KAFKA_TLS_PASSWORD
listener.name.ssl.ssl.key.password=$KAFKA_TLS_PASSWORD
listener.name.ssl.ssl.truststore.type=PKCS12
listener.name.ssl.ssl.truststore.location=$tls/truststore.p12
listener.name.ssl.ssl.truststore.password=$KAFKA_TLS_PASSWORD
listener.name.ssl.ssl.client.auth=$client_auth

# one broker: every internal topic has one replica
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
share.coordinator.state.topic.num.partitions=1
group.initial.rebalance.delay.ms=0

# small footprint: the cleaner's dedupe buffer is allocated on heap (default 128 MiB)
log.cleaner.dedupe.buffer.size=16777216
num.network.threads=2
num.io.threads=4
EOF
  if [ -n "${KAFKA_EXTRA_PROPS:-}" ]; then
    printf '\n# KAFKA_EXTRA_PROPS\n%s\n' "$KAFKA_EXTRA_PROPS" >> "$dir/server.properties"
  fi
}

write_client_properties() {
  local dir="$1" tls="$1/tls"
  cat > "$dir/client-sasl.properties" <<EOF
security.protocol=SASL_PLAINTEXT
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="$KAFKA_SASL_USER" password="$KAFKA_SASL_PASSWORD";
EOF
  cat > "$dir/client-ssl.properties" <<EOF
security.protocol=SSL
ssl.truststore.type=PEM
ssl.truststore.location=$tls/ca.pem
EOF
  cat > "$dir/client-mtls.properties" <<EOF
security.protocol=SSL
ssl.truststore.type=PKCS12
ssl.truststore.location=$tls/truststore.p12
ssl.truststore.password=$KAFKA_TLS_PASSWORD
ssl.keystore.type=PKCS12
ssl.keystore.location=$tls/client.p12
ssl.keystore.password=$KAFKA_TLS_PASSWORD
ssl.key.password=$KAFKA_TLS_PASSWORD
EOF
}

print_env() {
  local dir="$1" pid version
  pid="$(cat "$dir/kafka.pid" 2>/dev/null || true)"
  version="$(sed -n 's/.*Kafka version: \([^ ]*\).*/\1/p' "$dir/broker.log" 2>/dev/null | tail -n 1)"
  cat <<EOF
export LSST_KAFKA_BROKER_ADDR=$KAFKA_HOST:$KAFKA_PORT
export KAFKA_RUN_DIR=$dir
export KAFKA_PID=$pid
export KAFKA_SASL_ADDR=$KAFKA_HOST:$KAFKA_SASL_PORT
export KAFKA_SASL_MECHANISM=SCRAM-SHA-512
export KAFKA_SASL_USER=$KAFKA_SASL_USER
export KAFKA_SASL_PASSWORD=$KAFKA_SASL_PASSWORD
export KAFKA_SSL_ADDR=$KAFKA_HOST:$KAFKA_SSL_PORT
export KAFKA_TLS_DIR=$dir/tls
export KAFKA_MTLS=$(grep -q '^listener.name.ssl.ssl.client.auth=required' "$dir/server.properties" && echo 1 || echo 0)
export KAFKA_VERSION=${version:-$KAFKA_VERSION}
EOF
}

# ----------------------------------------------------------------------------------------- start/stop
cmd_start() {
  local dir="${1:-}" pid t0 t1 id tstart
  tstart=$(now_ms)
  cmd_install quiet
  check_java
  if [ -z "$dir" ]; then
    dir="$(mktemp -d "${TMPDIR:-/tmp}/salgo-kafka.XXXXXX")"
  else
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
  fi
  if pid="$(broker_pid "$dir")"; then
    die "a broker already runs for $dir (pid $pid); use: kafka.sh stop $dir"
  fi
  local p
  for p in "$KAFKA_PORT" "$KAFKA_SSL_PORT" "$KAFKA_SASL_PORT" "$KAFKA_CONTROLLER_PORT"; do
    port_open "$KAFKA_HOST" "$p" && die "port $KAFKA_HOST:$p is already in use (another broker? kafka.sh stop, or set KAFKA_PORT & co.)"
  done

  mkdir -p "$dir/data"
  t0=$(now_ms)
  if [ ! -f "$dir/tls/broker.p12" ]; then gen_tls "$dir/tls"; log "generated TLS material in $dir/tls in $(secs_since "$t0") s"; fi
  write_server_properties "$dir"
  write_client_properties "$dir"
  write_broker_log4j "$dir/log4j2.xml"
  write_tools_log4j "$dir/tools-log4j2.xml"

  if [ ! -f "$dir/data/meta.properties" ]; then
    id="${KAFKA_CLUSTER_ID:-$(random_cluster_id)}"
    t0=$(now_ms)
    if ! "$JAVA" -Xmx256m -Dlog4j2.configurationFile="$dir/tools-log4j2.xml" -cp "$KAFKA_LIBS/*" \
          kafka.tools.StorageTool format -t "$id" -c "$dir/server.properties" \
          --add-scram "SCRAM-SHA-512=[name=$KAFKA_SASL_USER,password=$KAFKA_SASL_PASSWORD]" \
          --add-scram "SCRAM-SHA-256=[name=$KAFKA_SASL_USER,password=$KAFKA_SASL_PASSWORD]" \
          </dev/null >"$dir/format.log" 2>&1; then
      cat "$dir/format.log" >&2
      die "kafka.tools.StorageTool format failed"
    fi
    log "formatted $dir/data (cluster id $id) in $(secs_since "$t0") s: $(grep -m1 -i 'formatting' "$dir/format.log" || true)"
  else
    log "reusing the formatted store in $dir/data"
  fi

  ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
  [ -f "$dir/broker.log" ] && mv -f "$dir/broker.log" "$dir/broker.log.$(date +%Y%m%d-%H%M%S)"
  t1=$(now_ms)
  # setsid + nohup + closed stdin: the broker outlives this script, holds no caller's pipe open
  # (so `$(kafka.sh start)` returns) and is not hit by the caller's terminal signals.
  # shellcheck disable=SC2086
  setsid nohup "$JAVA" $KAFKA_HEAP_OPTS $KAFKA_JVM_PERFORMANCE_OPTS ${KAFKA_OPTS:-} \
    -Dlog4j2.configurationFile="$dir/log4j2.xml" -Dkafka.logs.dir="$dir" \
    -cp "$KAFKA_LIBS/*" kafka.Kafka "$dir/server.properties" \
    </dev/null >"$dir/broker.log" 2>&1 &
  pid=$!
  echo "$pid" > "$dir/kafka.pid"
  mkdir -p "$CACHE_ROOT" && echo "$dir" > "$LAST_RUN_FILE"

  local deadline=$(( $(now_ms) + KAFKA_START_TIMEOUT * 1000 ))
  until grep -q 'Kafka Server started' "$dir/broker.log" 2>/dev/null; do
    if ! pid_alive "$pid"; then
      tail -n 60 "$dir/broker.log" >&2
      die "the broker exited during startup (log: $dir/broker.log)"
    fi
    if [ "$(now_ms)" -gt "$deadline" ]; then
      tail -n 60 "$dir/broker.log" >&2
      stop_pid "$pid"
      die "the broker did not start within ${KAFKA_START_TIMEOUT}s (log: $dir/broker.log)"
    fi
    sleep 0.2
  done
  for p in "$KAFKA_PORT" "$KAFKA_SSL_PORT" "$KAFKA_SASL_PORT"; do
    port_open "$KAFKA_HOST" "$p" || { stop_pid "$pid"; die "port $p is not open after 'Kafka Server started'"; }
  done
  log "Kafka $(sed -n 's/.*Kafka version: \([^ ]*\).*/\1/p' "$dir/broker.log" | tail -n 1) started in $(secs_since "$t1") s (pid $pid, log $dir/broker.log); kafka.sh start took $(secs_since "$tstart") s in all"
  print_env "$dir" | tee "$dir/kafka.env"
}

stop_pid() {  # SIGTERM, wait KAFKA_STOP_TIMEOUT, SIGKILL
  local pid="$1" i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < KAFKA_STOP_TIMEOUT * 5; i++)); do
    pid_alive "$pid" || return 0
    sleep 0.2
  done
  log "pid $pid still alive after ${KAFKA_STOP_TIMEOUT}s; SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do pid_alive "$pid" || return 0; sleep 0.1; done
}

stop_broker() {
  local dir="$1" pid t0
  if pid="$(broker_pid "$dir")"; then
    t0=$(now_ms)
    stop_pid "$pid"
    log "broker pid $pid stopped in $(secs_since "$t0") s"
  else
    log "no broker running for $dir"
  fi
  rm -f "$dir/kafka.pid"
}

# remove_run_dir deletes a stopped run's folder and forgets it as the last run.
remove_run_dir() {
  rm -rf "$1"
  log "removed $1"
  if [ "$(cat "$LAST_RUN_FILE" 2>/dev/null)" = "$1" ]; then rm -f "$LAST_RUN_FILE"; fi
}

cmd_stop() {
  local clean=0
  if [ "${1:-}" = "--clean" ]; then clean=1; shift; fi
  local dir pid
  dir="$(resolve_run_dir "${1:-}")"
  stop_broker "$dir"
  if pid="$(registry_pid "$dir")"; then   # a registry started in the same RUN_DIR goes too
    stop_pid "$pid"
    rm -f "$dir/registry.pid"
    log "registry pid $pid stopped"
  fi
  [ "$clean" = 1 ] && remove_run_dir "$dir"
  return 0
}

cmd_kill() {
  local dir pid i
  dir="$(resolve_run_dir "${1:-}")"
  if pid="$(broker_pid "$dir")"; then
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do pid_alive "$pid" || break; sleep 0.1; done
    log "broker pid $pid killed (SIGKILL); 'kafka.sh start $dir' restarts it on the same data"
  else
    log "no broker running for $dir"
  fi
  rm -f "$dir/kafka.pid"
}

cmd_restart() {
  local dir
  dir="$(resolve_run_dir "${1:-}")"
  stop_broker "$dir"
  cmd_start "$dir"
}

cmd_status() {
  local dir pid
  dir="$(resolve_run_dir "${1:-}")"
  if pid="$(broker_pid "$dir")"; then
    log "broker running for $dir (pid $pid)"
  else
    log "no broker running for $dir"
    return 1
  fi
}

cmd_env() {
  local dir
  dir="$(resolve_run_dir "${1:-}")"
  print_env "$dir"
}

cmd_tool() {
  [ $# -ge 1 ] || die "usage: kafka.sh tool CLASS [ARGS...]"
  cmd_install quiet
  check_java
  local cfg="$CACHE_ROOT/$KAFKA_VERSION/tools-log4j2.xml"
  [ -f "$cfg" ] || write_tools_log4j "$cfg"
  # shellcheck disable=SC2086
  exec "$JAVA" ${KAFKA_TOOL_HEAP_OPTS:--Xmx256m} -Dlog4j2.configurationFile="$cfg" -cp "$KAFKA_LIBS/*" "$@"
}

# ----------------------------------------------------------------------------------------- cluster
# N combined broker+controller nodes on loopback with a static N-voter quorum (PLAINTEXT only, no
# TLS or SASL), for replication and leader-failover tests. Node I (1..N) lives in RUN_DIR/nodeI, has
# node.id I, client port KAFKA_PORT+10*(I-1) and controller port KAFKA_CONTROLLER_PORT+10*(I-1).
# The broker defaults are replication factor min(N,3) and min.insync.replicas 2 (1 below 3 nodes),
# for the internal topics too.
KAFKA_CLUSTER_HEAP_OPTS="${KAFKA_CLUSTER_HEAP_OPTS:--Xms128m -Xmx384m}"

node_port() { echo $((KAFKA_PORT + 10 * ($1 - 1))); }
node_controller_port() { echo $((KAFKA_CONTROLLER_PORT + 10 * ($1 - 1))); }

cluster_size() {  # the N recorded by cluster-start in RUN_DIR
  local n
  n="$(cat "$1/cluster.size" 2>/dev/null)" || die "$1 holds no cluster (no cluster.size; use cluster-start)"
  printf '%s\n' "$n"
}

node_dir() {  # $1 run dir, $2 node id, checked against the cluster's size
  local n
  n="$(cluster_size "$1")"
  { [[ "$2" =~ ^[1-9]$ ]] && [ "$2" -le "$n" ]; } || die "node id '$2' is not between 1 and $n (the size of the cluster in $1)"
  printf '%s/node%s\n' "$1" "$2"
}

node_addr() { printf '%s:%s\n' "$KAFKA_HOST" "$(sed -n 's#^advertised.listeners=PLAINTEXT://[^:]*:##p' "$1/server.properties")"; }

write_node_properties() {  # $1 node dir, $2 node id, $3 cluster size, $4 voters
  local dir="$1" i="$2" n="$3" rf isr
  rf=$(( n < 3 ? n : 3 ))
  isr=$(( n >= 3 ? 2 : 1 ))
  cat > "$dir/server.properties" <<EOF
# generated by scripts/kafka/kafka.sh cluster-start: node $i of a $n-node KRaft cluster (static quorum)
process.roles=broker,controller
node.id=$i
controller.quorum.voters=$4
controller.listener.names=CONTROLLER
listeners=PLAINTEXT://$KAFKA_HOST:$(node_port "$i"),CONTROLLER://$KAFKA_HOST:$(node_controller_port "$i")
advertised.listeners=PLAINTEXT://$KAFKA_HOST:$(node_port "$i")
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data

num.partitions=1
default.replication.factor=$rf
min.insync.replicas=$isr
unclean.leader.election.enable=false
auto.create.topics.enable=false
offsets.topic.replication.factor=$rf
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=$rf
transaction.state.log.min.isr=$isr
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=$rf
share.coordinator.state.topic.min.isr=$isr
share.coordinator.state.topic.num.partitions=1
group.initial.rebalance.delay.ms=0

# small footprint: several JVMs share a small machine
log.cleaner.dedupe.buffer.size=16777216
num.network.threads=2
num.io.threads=2
num.replica.fetchers=1
background.threads=4
EOF
  if [ -n "${KAFKA_EXTRA_PROPS:-}" ]; then
    printf '\n# KAFKA_EXTRA_PROPS\n%s\n' "$KAFKA_EXTRA_PROPS" >> "$dir/server.properties"
  fi
}

launch_node() {  # $1 node dir: start its JVM in the background on its server.properties
  local dir="$1"
  [ -f "$dir/broker.log" ] && mv -f "$dir/broker.log" "$dir/broker.log.$(date +%Y%m%d-%H%M%S%3N)"
  # shellcheck disable=SC2086
  setsid nohup "$JAVA" $KAFKA_CLUSTER_HEAP_OPTS $KAFKA_JVM_PERFORMANCE_OPTS ${KAFKA_OPTS:-} \
    -Dlog4j2.configurationFile="$dir/log4j2.xml" -Dkafka.logs.dir="$dir" \
    -cp "$KAFKA_LIBS/*" kafka.Kafka "$dir/server.properties" \
    </dev/null >"$dir/broker.log" 2>&1 &
  echo "$!" > "$dir/kafka.pid"
}

wait_nodes() {  # $1 deadline (ms), then node dirs: wait until each logs 'Kafka Server started'
  local deadline="$1" d pid
  shift
  for d in "$@"; do
    pid="$(cat "$d/kafka.pid")"
    until grep -q 'Kafka Server started' "$d/broker.log" 2>/dev/null; do
      if ! pid_alive "$pid"; then
        tail -n 40 "$d/broker.log" >&2
        log "error: $(basename "$d") exited during startup (log: $d/broker.log)"
        return 1
      fi
      if [ "$(now_ms)" -gt "$deadline" ]; then
        tail -n 40 "$d/broker.log" >&2
        log "error: $(basename "$d") did not start within ${KAFKA_START_TIMEOUT}s (log: $d/broker.log)"
        return 1
      fi
      sleep 0.2
    done
  done
}

print_cluster_env() {
  local dir="$1" n i addrs="" version
  n="$(cluster_size "$dir")"
  for ((i = 1; i <= n; i++)); do addrs="$addrs${addrs:+,}$(node_addr "$dir/node$i")"; done
  version="$(sed -n 's/.*Kafka version: \([^ ]*\).*/\1/p' "$dir/node1/broker.log" 2>/dev/null | tail -n 1)"
  cat <<EOF
export LSST_KAFKA_BROKER_ADDR=$addrs
export KAFKA_RUN_DIR=$dir
export KAFKA_CLUSTER_SIZE=$n
export KAFKA_VERSION=${version:-$KAFKA_VERSION}
EOF
}

cmd_cluster_start() {
  local n="${1:-}" dir="${2:-}" i p d id voters="" tstart t1 formats=() dirs=()
  [[ "$n" =~ ^[1-9]$ ]] || die "usage: kafka.sh cluster-start N [RUN_DIR] (N from 1 to 9)"
  tstart=$(now_ms)
  cmd_install quiet
  check_java
  if [ -z "$dir" ]; then
    dir="$(mktemp -d "${TMPDIR:-/tmp}/salgo-kafka-cluster.XXXXXX")"
  else
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
  fi
  if [ -f "$dir/cluster.size" ] && [ "$(cat "$dir/cluster.size")" != "$n" ]; then
    die "$dir holds a $(cat "$dir/cluster.size")-node cluster, not $n"
  fi
  for ((i = 1; i <= n; i++)); do
    if p="$(broker_pid "$dir/node$i")"; then die "node $i of $dir already runs (pid $p); use: kafka.sh cluster-stop $dir"; fi
    for p in "$(node_port "$i")" "$(node_controller_port "$i")"; do
      if port_open "$KAFKA_HOST" "$p"; then
        die "port $KAFKA_HOST:$p is already in use (another broker? set KAFKA_PORT and KAFKA_CONTROLLER_PORT)"
      fi
    done
    voters="$voters${voters:+,}$i@$KAFKA_HOST:$(node_controller_port "$i")"
    dirs+=("$dir/node$i")
  done
  echo "$n" > "$dir/cluster.size"
  id="$(cat "$dir/cluster.id" 2>/dev/null || true)"
  if [ -z "$id" ]; then id="${KAFKA_CLUSTER_ID:-$(random_cluster_id)}"; echo "$id" > "$dir/cluster.id"; fi
  for ((i = 1; i <= n; i++)); do
    d="$dir/node$i"
    mkdir -p "$d/data"
    [ -f "$d/server.properties" ] || write_node_properties "$d" "$i" "$n" "$voters"
    write_broker_log4j "$d/log4j2.xml"
    write_tools_log4j "$d/tools-log4j2.xml"
    if [ ! -f "$d/data/meta.properties" ]; then   # the nodes are formatted in parallel (a JVM each)
      "$JAVA" -Xmx128m -Dlog4j2.configurationFile="$d/tools-log4j2.xml" -cp "$KAFKA_LIBS/*" \
        kafka.tools.StorageTool format -t "$id" -c "$d/server.properties" </dev/null >"$d/format.log" 2>&1 &
      formats+=("$!:$d")
    fi
  done
  for p in ${formats[@]+"${formats[@]}"}; do
    wait "${p%%:*}" || { cat "${p#*:}/format.log" >&2; die "kafka.tools.StorageTool format failed for ${p#*:}"; }
  done
  [ ${#formats[@]} -eq 0 ] || log "formatted ${#formats[@]} node store(s) (cluster id $id) in $(secs_since "$tstart") s"
  ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
  t1=$(now_ms)
  for d in "${dirs[@]}"; do launch_node "$d"; done
  mkdir -p "$CACHE_ROOT" && echo "$dir" > "$LAST_RUN_FILE"
  if ! wait_nodes $(( $(now_ms) + KAFKA_START_TIMEOUT * 1000 )) "${dirs[@]}"; then
    for d in "${dirs[@]}"; do if p="$(broker_pid "$d")"; then stop_pid "$p"; fi; done
    die "the $n-node cluster in $dir did not start"
  fi
  log "$n-node Kafka cluster started in $(secs_since "$t1") s (heap $KAFKA_CLUSTER_HEAP_OPTS each, logs $dir/node*/broker.log); cluster-start took $(secs_since "$tstart") s in all"
  print_cluster_env "$dir" | tee "$dir/kafka.env"
}

cmd_cluster_stop() {
  local clean=0 dir n i
  if [ "${1:-}" = "--clean" ]; then clean=1; shift; fi
  dir="$(resolve_run_dir "${1:-}")"
  n="$(cluster_size "$dir")"
  for ((i = 1; i <= n; i++)); do stop_broker "$dir/node$i" & done   # in parallel: each waits for its JVM
  wait
  [ "$clean" = 1 ] && remove_run_dir "$dir"
  return 0
}

cmd_cluster_status() {
  local dir n i pid down=0
  dir="$(resolve_run_dir "${1:-}")"
  n="$(cluster_size "$dir")"
  for ((i = 1; i <= n; i++)); do
    if pid="$(broker_pid "$dir/node$i")"; then
      log "node $i: running (pid $pid, $(node_addr "$dir/node$i"))"
    else
      log "node $i: not running"
      down=$((down + 1))
    fi
  done
  [ "$down" -eq 0 ]
}

cmd_node() {  # $1 kill|stop|start, $2 node id, $3 run dir
  local what="$1" i="${2:-}" dir d pid k t0
  [ -n "$i" ] || die "usage: kafka.sh node-$what I [RUN_DIR]"
  dir="$(resolve_run_dir "${3:-}")"
  d="$(node_dir "$dir" "$i")"
  case "$what" in
    kill)
      if pid="$(broker_pid "$d")"; then
        kill -KILL "$pid" 2>/dev/null || true
        for ((k = 0; k < 100; k++)); do pid_alive "$pid" || break; sleep 0.1; done
        log "node $i (pid $pid) killed (SIGKILL); 'kafka.sh node-start $i $dir' restarts it on the same data"
      else
        log "node $i of $dir is not running"
      fi
      rm -f "$d/kafka.pid"
      ;;
    stop) stop_broker "$d" ;;
    start)
      if pid="$(broker_pid "$d")"; then die "node $i of $dir already runs (pid $pid)"; fi
      check_java
      t0=$(now_ms)
      launch_node "$d"
      wait_nodes $(( $(now_ms) + KAFKA_START_TIMEOUT * 1000 )) "$d" || die "node $i of $dir did not start"
      log "node $i started in $(secs_since "$t0") s (pid $(cat "$d/kafka.pid"))"
      ;;
  esac
}

# ----------------------------------------------------------------------------------------- registry
REGISTRY_ARTIFACT="io.apicurio:apicurio-registry-app:$REGISTRY_VERSION:tar.gz:all"

cmd_registry_install() {
  [ -f "$REGISTRY_HOME/.complete" ] && [ -f "$REGISTRY_HOME/quarkus-run.jar" ] && return 0
  ensure_tools java mvn tar
  local t0 tgz dl tmp
  t0=$(now_ms)
  dl="$CACHE_ROOT/apicurio"
  tgz="$dl/apicurio-registry-app-$REGISTRY_VERSION-all.tar.gz"
  mkdir -p "$dl"
  if [ ! -s "$tgz" ]; then
    log "fetching $REGISTRY_ARTIFACT from Maven Central (~160 MB; log: $dl/mvn-install.log)"
    # shellcheck disable=SC2086
    if ! mvn -B -ntp ${KAFKA_MVN_ARGS:-} -f "$POM" dependency:copy -Dartifact="$REGISTRY_ARTIFACT" \
          -DoutputDirectory="$dl" </dev/null >"$dl/mvn-install.log" 2>&1; then
      tail -n 30 "$dl/mvn-install.log" >&2
      die "mvn could not fetch $REGISTRY_ARTIFACT"
    fi
  fi
  tmp="$(mktemp -d "$dl/.x.XXXXXX")"
  tar -xzf "$tgz" -C "$tmp" || { rm -rf "$tmp"; die "cannot extract $tgz"; }
  [ -f "$tmp/quarkus-run.jar" ] || { rm -rf "$tmp"; die "$tgz has no quarkus-run.jar"; }
  touch "$tmp/.complete"
  rm -rf "$REGISTRY_HOME"
  mv "$tmp" "$REGISTRY_HOME"
  rm -f "$tgz"   # the extracted tree is what is kept
  log "Apicurio Registry $REGISTRY_VERSION installed in $REGISTRY_HOME in $(secs_since "$t0") s"
}

# Apicurio Registry 3.x is compiled for Java 21 (class file 65): it fails on Java 17 with
# UnsupportedClassVersionError. Pick REGISTRY_JAVA_HOME, else JAVA_HOME, else any JDK >= 21 under
# /usr/lib/jvm (this project's machines ship Temurin 25 beside OpenJDK 17; Debian 12 has no JDK 21).
registry_java() {
  local c v
  for c in ${REGISTRY_JAVA_HOME:+"$REGISTRY_JAVA_HOME"} ${JAVA_HOME:+"$JAVA_HOME"} /usr/lib/jvm/*; do
    [ -x "$c/bin/java" ] || continue
    v="$("$c/bin/java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}')"
    if [ "${v%%.*}" -ge 21 ] 2>/dev/null; then printf '%s\n' "$c/bin/java"; return 0; fi
  done
  return 1
}

registry_pid() {
  local dir="$1" pid cmd
  pid="$(cat "$dir/registry.pid" 2>/dev/null)" || return 1
  pid_alive "$pid" || return 1
  cmd="$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)" || return 1
  [[ "$cmd" == *"$REGISTRY_HOME/quarkus-run.jar"* ]] || return 1
  printf '%s\n' "$pid"
}

registry_url() { printf 'http://%s:%s/apis/ccompat/v7\n' "$KAFKA_HOST" "$REGISTRY_PORT"; }

cmd_registry_start() {
  local dir="${1:-${KAFKA_RUN_DIR:-}}" pid t0
  cmd_registry_install
  ensure_tools curl
  local rjava
  rjava="$(registry_java)" || die "Apicurio Registry $REGISTRY_VERSION needs Java 21+; none found (set REGISTRY_JAVA_HOME)"
  if [ -z "$dir" ]; then dir="$(mktemp -d "${TMPDIR:-/tmp}/salgo-registry.XXXXXX")"; fi
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  if pid="$(registry_pid "$dir")"; then die "a registry already runs for $dir (pid $pid)"; fi
  local p
  for p in "$REGISTRY_PORT" "$REGISTRY_MGMT_PORT"; do
    port_open "$KAFKA_HOST" "$p" && die "port $KAFKA_HOST:$p is already in use (set REGISTRY_PORT / REGISTRY_MGMT_PORT)"
  done
  mkdir -p "$dir/registry-tmp"
  t0=$(now_ms)
  # In-memory H2 storage is Apicurio 3's default (apicurio.storage.kind=sql, sql.kind=h2, jdbc:h2:mem:).
  # shellcheck disable=SC2086
  (cd "$dir/registry-tmp" && exec setsid nohup "$rjava" ${REGISTRY_HEAP_OPTS:--Xms64m -Xmx512m} ${REGISTRY_OPTS:-} \
    -Djava.io.tmpdir="$dir/registry-tmp" \
    -Dquarkus.http.host="$KAFKA_HOST" -Dquarkus.http.port="$REGISTRY_PORT" \
    -Dquarkus.management.host="$KAFKA_HOST" -Dquarkus.management.port="$REGISTRY_MGMT_PORT" \
    -Dquarkus.otel.sdk.disabled=true \
    -Dapicurio.storage.kind=sql -Dapicurio.storage.sql.kind=h2 \
    -Dapicurio.storage.snapshot.location="$dir/registry-tmp" -Dapicurio.import.work-dir="$dir/registry-tmp" \
    -Dapicurio.rules.global.compatibility="$REGISTRY_COMPAT" \
    -jar "$REGISTRY_HOME/quarkus-run.jar" \
    </dev/null >"$dir/registry.log" 2>&1) &
  pid=$!
  echo "$pid" > "$dir/registry.pid"
  mkdir -p "$CACHE_ROOT" && echo "$dir" > "$LAST_REGISTRY_FILE"
  local deadline=$(( $(now_ms) + REGISTRY_START_TIMEOUT * 1000 ))
  until curl -fsS -o /dev/null --max-time 2 "$(registry_url)/subjects" 2>/dev/null; do
    if ! pid_alive "$pid"; then
      tail -n 60 "$dir/registry.log" >&2
      die "the registry exited during startup (log: $dir/registry.log)"
    fi
    if [ "$(now_ms)" -gt "$deadline" ]; then
      tail -n 60 "$dir/registry.log" >&2
      stop_pid "$pid"
      die "the registry did not answer within ${REGISTRY_START_TIMEOUT}s (log: $dir/registry.log)"
    fi
    sleep 0.5
  done
  log "Apicurio Registry $REGISTRY_VERSION answered in $(secs_since "$t0") s (pid $pid, $rjava, log $dir/registry.log)"
  {
    echo "export LSST_SCHEMA_REGISTRY_URL=$(registry_url)"
    echo "export REGISTRY_RUN_DIR=$dir"
    echo "export REGISTRY_PID=$pid"
  } | tee "$dir/registry.env"
}

cmd_registry_stop() {
  local dir="${1:-${REGISTRY_RUN_DIR:-${KAFKA_RUN_DIR:-}}}" pid
  if [ -z "$dir" ] && [ -f "$LAST_REGISTRY_FILE" ]; then dir="$(cat "$LAST_REGISTRY_FILE")"; fi
  { [ -n "$dir" ] && [ -d "$dir" ]; } || die "no registry dir given and none recorded"
  if pid="$(registry_pid "$dir")"; then
    stop_pid "$pid"
    log "registry pid $pid stopped"
  else
    log "no registry running for $dir"
  fi
  rm -f "$dir/registry.pid"
}

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; }

main() {
  local cmd="${1:-}"
  [ $# -gt 0 ] && shift
  case "$cmd" in
    install) cmd_install ;;
    start) cmd_start "${1:-}" ;;
    stop) cmd_stop "$@" ;;
    restart) cmd_restart "${1:-}" ;;
    kill) cmd_kill "${1:-}" ;;
    status) cmd_status "${1:-}" ;;
    env) cmd_env "${1:-}" ;;
    tool) cmd_tool "$@" ;;
    cluster-start) cmd_cluster_start "${1:-}" "${2:-}" ;;
    cluster-stop) cmd_cluster_stop "$@" ;;
    cluster-status) cmd_cluster_status "${1:-}" ;;
    node-kill) cmd_node kill "${1:-}" "${2:-}" ;;
    node-stop) cmd_node stop "${1:-}" "${2:-}" ;;
    node-start) cmd_node start "${1:-}" "${2:-}" ;;
    registry-install) cmd_registry_install ;;
    registry-start) cmd_registry_start "${1:-}" ;;
    registry-stop) cmd_registry_stop "${1:-}" ;;
    -h|--help|help) usage ;;
    *) usage; exit 2 ;;
  esac
}

main "$@"
