#!/usr/bin/env bash
# Runs an Aloft broker in the foreground until Ctrl-C / SIGTERM (graceful shutdown: the WAL tail is
# uploaded and streams are closed first).
#
#   bin/aloft-server.sh [config/server.properties]
#
# Without a file: embedded defaults — WAL, metadata log and objects under ./data, one controller
# voter, Kafka clients on 127.0.0.1:9092, /metrics /healthz /readyz on 127.0.0.1:9464. Builds the broker jar on first use (Maven, JDK 17+).
# JVM options: ALOFT_HEAP_OPTS (default -Xms1g -Xmx3g: the log cache, upload buffers and block
# cache need about 2 GiB with default settings), ALOFT_GC_OPTS (default -XX:+UseZGC: G1's pauses
# while it copies the log cache and allocates upload buffers put hundreds of milliseconds on the
# produce p99; ZGC's do not), ALOFT_JVM_OPTS (extra flags).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
jar="$root/core/target/aloft-core.jar"
if [ ! -f "$jar" ]; then
  echo "building the broker (first run) ..." >&2
  (cd "$root" && mvn -B -q -pl core -am package -DskipTests >&2)
fi
# shellcheck disable=SC2086
exec java ${ALOFT_HEAP_OPTS:--Xms1g -Xmx3g} ${ALOFT_GC_OPTS:--XX:+UseZGC} ${ALOFT_JVM_OPTS:-} \
  -Dlog4j2.shutdownHookEnabled=false \
  -Dlog4j2.configurationFile="${ALOFT_LOG4J_CONFIG:-$root/config/log4j2.xml}" \
  -jar "$jar" "$@"
