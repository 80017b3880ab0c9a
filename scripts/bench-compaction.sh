#!/usr/bin/env bash
# Key compaction benchmark (issue 12): the same workload on Apache Kafka 4.3.1 (its broker jars from
# kafka-dist, a KRaft single node in a child JVM) and on Aloft (in the benchmark JVM, so its object
# storage and cleaner counters can be read): a 1 GiB one-partition topic of 1 KiB values with keys
# drawn from 10% as many, switched from cleanup.policy=delete to compact while a probe produces to
# another topic. Reports compaction throughput (MB of input / s) and the Aloft/Kafka ratio, object
# storage bytes read and written per MB compacted, the compactor's heap, and the probe's produce
# latency during compaction vs without. A harness, not a test: mvn verify never runs it.
#
#   scripts/bench-compaction.sh [--dir DIR] [--quick] [--no-build]
#
#   --dir DIR    scratch file system for both brokers' data (a fresh sub-directory, deleted at the
#                end; default: bench/target)
#   --quick      128 MiB instead of 1 GiB and shorter windows: a smoke run of about 2 minutes; the
#                full run takes about 6 minutes on 2 cores
#   --no-build   run the jar already in bench/target
#
# Progress goes to stderr, the Markdown report to stdout; JSON and Markdown copies are written to
# bench/target/compaction-bench-<timestamp>.{json,md}. Extra JVM flags via BENCH_JAVA_OPTS.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" != "--no-build" ] && [ ! -d kafka-dist/target/kafka-libs ]; then
  mvn -B -q -pl kafka-dist package >&2
fi
# shellcheck source=lib/bench-run.sh
. scripts/lib/bench-run.sh
# Heap: Aloft's log cache (512 MiB) and block cache (128 MiB) at their defaults, the key map (128 MiB), clients.
bench_run 18 3g io.aloft.bench.compaction.CompactionBenchmark s3stream core -- "$@"
