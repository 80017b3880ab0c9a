#!/usr/bin/env bash
# Partition reassignment benchmark (issue 13): the same moves on a 3-broker Apache Kafka 4.3.1
# cluster (KRaft: 3 brokers and one dedicated controller node, jars from kafka-dist) and on a
# 3-broker Aloft cluster (controller quorum embedded in the brokers, objects on one local
# versitygw), every node a child process on 127.0.0.1, replication factor 1, 1 GiB heap per broker.
# Reports, per system and side by side:
#   - move time of one partition holding ~1 MiB, ~1 GiB and ~10 GiB (10, 5 and 3 moves,
#     round-robin between the brokers): from the AlterPartitionReassignments call until the new
#     broker acknowledged a produce to it; p50 / p99 / max and the Aloft/Kafka ratio;
#   - a background idempotent acks=all producer (500 records/s of 1 KiB) during the moves: latency
#     p50 / p99 / max, retries and errors;
#   - a broker holding 1,000 partitions taken out of service: Aloft's drain on SIGTERM (time to
#     exit, time until every partition acknowledged a produce elsewhere); Kafka's controlled shutdown
#     (time to exit; RF 1 partitions go offline until it is back) and, as Kafka's equivalent of a
#     drain, moving all 1,000 away with one reassignment, then stopping it.
# A harness, not a test: mvn verify never runs it. The full run peaks at about 32 GB under DIR
# (Kafka's 10 GiB partition and the old copies it deletes a minute after a move).
#
#   scripts/bench-reassign.sh [--dir DIR] [--quick] [--no-build] [--objects s3|file] [--systems LIST]
#
#   --dir DIR         scratch file system for the clusters' data (a fresh sub-directory, deleted at
#                     the end; default: bench/target)
#   --quick           1 MiB and 128 MiB partitions instead of 1 MiB, 1 GiB and 10 GiB: 5-9 minutes;
#                     the full run takes about 15 minutes on 2 cores (each phase has a deadline)
#   --no-build        run the jar already in bench/target
#   --objects s3|file Aloft's objects on a local versitygw (default) or in a file:// directory
#   --systems LIST    kafka,aloft (default) or one of them
#
# Progress goes to stderr, the Markdown report to stdout; JSON and Markdown copies are written to
# bench/target/reassign-bench-<timestamp>.{json,md}. Every process it starts is stopped at the end,
# also on failure or Ctrl-C (a JVM shutdown hook). Extra JVM flags via BENCH_JAVA_OPTS.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/bench-run.sh
. scripts/lib/bench-run.sh
extra=()
rest=()
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --objects|--systems) [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }; extra+=("$1" "$2"); shift 2 ;;
    --no-build) build=0; rest+=("$1"); shift ;;
    *) rest+=("$1"); shift ;;
  esac
done
if [ "$build" = 1 ]; then
  mvn -B -q -pl kafka-dist package >&2
  scripts/s3-server.sh versitygw >/dev/null
fi
BENCH_EXTRA_ARGS="${extra[*]:-}"
# Heap: the loader's 128 MiB buffer and the clients; the brokers are child processes.
bench_run 31 1g io.aloft.bench.reassign.ReassignBenchmark servers core bench -- "${rest[@]+"${rest[@]}"}"
