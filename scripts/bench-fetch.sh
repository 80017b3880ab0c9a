#!/usr/bin/env bash
# Fetch sessions benchmark (issue 11, item 5): builds core and the bench module, then, for each of
# sessions off (max.incremental.fetch.session.cache.slots=0: every fetch lists and answers all
# partitions) and on (Kafka's default 1000 slots), starts a fresh Aloft broker as a child process on
# loopback, creates 1,000 topics of one partition, fills them, and has one kafka-clients consumer
# read all of them: catch-up from the beginning, then a tail under a steady producer, then idle.
# Reports the broker process's CPU seconds (user + system, /proc/<pid>/stat) per MB consumed.
# A harness, not a test: mvn verify never runs it.
#
#   scripts/bench-fetch.sh [--dir DIR] [--quick] [--no-build] [--rounds N] [--with-kafka] [--slots LIST]
#
#   --dir DIR      scratch directory for the brokers' data: a fresh sub-directory of DIR, deleted at
#                  the end (default: bench/target)
#   --quick        smaller phases (about 2.5 minutes instead of 4.5)
#   --no-build     run the jar already in bench/target
#   --rounds N     run the two settings N times, alternating (default 1)
#   --with-kafka   then the same with Apache Kafka 4.3.1 (kafka-dist/target/kafka-libs), for reference
#   --slots LIST   the max.incremental.fetch.session.cache.slots settings to run (default 0,1000)
#
# Progress goes to stderr, the Markdown report to stdout; JSON and Markdown copies are written to
# bench/target/fetch-bench-<timestamp>.{json,md}. Extra JVM flags via BENCH_JAVA_OPTS.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/bench-run.sh
. scripts/lib/bench-run.sh
extra=()
rest=()
while [ $# -gt 0 ]; do
  case "$1" in
    --with-kafka) extra+=(--with-kafka); shift ;;
    --rounds|--slots) [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }; extra+=("$1" "$2"); shift 2 ;;
    *) rest+=("$1"); shift ;;
  esac
done
BENCH_EXTRA_ARGS="${extra[*]:-}" bench_run 21 1g io.aloft.bench.fetch.FetchBenchmark core -- "${rest[@]}"
