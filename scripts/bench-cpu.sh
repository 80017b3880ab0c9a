#!/usr/bin/env bash
# CPU per byte, produce vs fetch (issue 15, item 5): builds the bench module, then starts a fresh
# Aloft broker (embedded defaults, objects on file://, a 256 MiB log cache) and a fresh Apache Kafka
# 4.3.1 broker (kafka-dist/target/kafka-libs), one after the other, as child processes on loopback,
# and measures in one run the broker process's CPU seconds (user + system, /proc/<pid>/stat) per MB
# for: produce as fast as acknowledged (1 GiB or 60 s); produce at 20,000 records/s for 30 s, alone
# and with a tail consumer (the difference is the tail fetch's cost); a catch-up read from offset 0
# of the whole backlog (1 GiB or 60 s; on Aloft it comes from objects). kafka-clients 4.3.1, 1 KiB
# records, acks=all, idempotent, one topic of 8 partitions. About 10 minutes (5 without Kafka).
# A harness, not a test: mvn verify never runs it.
#
#   scripts/bench-cpu.sh [--dir DIR] [--quick] [--no-build] [--rounds N] [--no-kafka] [--jfr DIR]
#
#   --dir DIR      scratch directory for the brokers' data: a fresh sub-directory of DIR, deleted at
#                  the end (default: bench/target)
#   --quick        smaller phases (10,000 records/s for 15 s, 256 MiB, 384 MiB of catch-up)
#   --no-build     run the jar already in bench/target
#   --rounds N     run the systems N times, alternating (default 1)
#   --no-kafka     Aloft only
#   --jfr DIR      a flight recording of the Aloft broker per phase in DIR (costs it some CPU)
#
# Progress goes to stderr, the Markdown report to stdout; JSON and Markdown copies are written to
# bench/target/cpu-bench-<timestamp>.{json,md}. Extra JVM flags via BENCH_JAVA_OPTS.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/bench-run.sh
. scripts/lib/bench-run.sh
extra=()
rest=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-kafka) extra+=(--no-kafka); shift ;;
    --rounds|--jfr) [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }; extra+=("$1" "$2"); shift 2 ;;
    *) rest+=("$1"); shift ;;
  esac
done
# The rev is marked dirty by uncommitted changes to the brokers' code, not to the harness.
BENCH_EXTRA_ARGS="${extra[*]:-}" bench_run 23 1g io.aloft.bench.cpu.CpuPerByteBenchmark \
  wal s3stream core servers config-def -- "${rest[@]}"
