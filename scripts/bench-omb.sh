#!/usr/bin/env bash
# Aloft vs Apache Kafka 4.3.1 on this machine (issue 6): builds the OMB runner, which also fetches
# Apache Kafka's jars into kafka-dist/target/kafka-libs, then runs `aloft-omb compare`: each step of
# openmessaging-bench/compare-plan.yaml (an OMB workload with its driver) runs against a fresh
# Apache Kafka (KRaft, 1 node) and a fresh Aloft, both child processes on 127.0.0.1 with the same
# heap, alternating the order, repeated. A harness, not a test: mvn verify never runs it.
#
#   scripts/bench-omb.sh [--no-build] [compare options]
#
#   --no-build         run the jar already in openmessaging-bench/target
#   --quick            every run shortened (the plan's quickOverrides): a smoke check, minutes
#   --repeats N        runs per system and step (default 2)
#   --heap SIZE        -Xms/-Xmx of each broker (default 3g)
#   --kafka-fsync      also run Kafka with log.flush.interval.messages=1 (fsync per write, as Aloft)
#   --aloft-s3         also run Aloft with its objects on a local versitygw (scripts/s3-server.sh)
#   --workloads A,B    only these plan steps (default: all); --plan FILE for another plan
#   --duration-minutes X, --warmup-minutes Y   replace every step's durations
#   --dir DIR          disk for the brokers' data (default: the temp dir); --out DIR for results
#   --security PROTO   clients over ssl, sasl_plaintext or sasl_ssl (default plaintext); same certificate for both
#   --consumers 1,4,16 each step once per consumer count (steps <step>-<n>c), plus a summary table:
#                      --workloads share --consumers 1,4,16 gives the share-group README rows
#   --help             all compare options
#
# Progress goes to stderr, the Markdown report (one table per step: Kafka, Aloft, Aloft/Kafka, and
# the machine) to stdout; JSON and Markdown copies to openmessaging-bench/target/omb-compare/.
# Extra JVM flags for the benchmark client JVM via BENCH_JAVA_OPTS.
set -euo pipefail
cd "$(dirname "$0")/.."
build=1
args=()
for a in "$@"; do
  case "$a" in
    --no-build) build=0 ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; echo; args+=(--help) ;;
    *) args+=("$a") ;;
  esac
done
if [ "$build" = 1 ]; then
  echo "building openmessaging-bench and kafka-dist ..." >&2
  mvn -B -q -pl openmessaging-bench -am package -DskipTests
fi
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- wal s3stream core openmessaging-bench 2>/dev/null)" ]; then
  rev="$rev+dirty"
fi
# The client side (producers, consumers) runs in this JVM; the brokers get --heap each.
# shellcheck disable=SC2086
ALOFT_GIT_REV=$rev exec java -Xmx2g -XX:+UseG1GC ${BENCH_JAVA_OPTS:-} \
  -cp openmessaging-bench/target/aloft-omb.jar io.aloft.omb.OmbMain compare "${args[@]}"
