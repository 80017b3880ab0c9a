#!/usr/bin/env bash
# Broker failover benchmark (issue 14). Every process a child on 127.0.0.1, objects on one local
# versitygw. Two phases:
#   - failover: 3 Aloft brokers (controller quorum embedded in all three), a topic of 12 partitions
#     with replication factor 1, an idempotent acks=all producer (--rate records/s of 1 KiB, each
#     keyed by its per-partition sequence number). Each round SIGKILLs one broker (round-robin) and
#     times until every partition it led acknowledged a probe produce at a live broker, then starts
#     it again and moves its partitions back. Once with the default broker.session.timeout.ms /
#     broker.heartbeat.interval.ms (9000 / 2000 ms) and once with 3000 / 500 ms. Then the topic is
#     read back: acknowledged records lost / duplicated per round. Reports p50 and max failover time.
#   - cost: one broker, the same open-loop load (--cost-mib-per-second of 1 KiB records) with the
#     WAL in object storage (wal.url on the versitygw) and with the block WAL: produce latency
#     p50 / p99 / max, and the object WAL's PUTs per GiB (counted from versitygw's data directory).
# A harness, not a test: mvn verify never runs it. About 8 minutes on 2 cores (--quick: about 4).
#
#   scripts/bench-failover.sh [--dir DIR] [--quick] [--no-build] [--rounds N] [--wal object|block|both]
#                             [--rate N] [--phases failover,cost] [--cost-mib-per-second N[,N...]]
#                             [--wal-batch-intervals MS[,MS...]] [--cost-seconds N]
#
#   --dir DIR         scratch file system for the brokers' data and the gateway's objects (a fresh
#                     sub-directory, deleted at the end; default: bench/target)
#   --quick           2 rounds per setting and a 10 s cost window
#   --no-build        run the jar already in bench/target
#   --rounds N        kill rounds per setting (default 5)
#   --wal MODE        object (default): the WAL in object storage, which another broker takes over;
#                     block: the WAL file (a round waits at most 30 s for the partitions elsewhere, then
#                     restarts the broker and says "waited for restart"); both
#   --rate N          the failover load, records/s (default 200)
#   --phases LIST     failover,cost (default) or one of them
#   --cost-mib-per-second N[,N...], --cost-seconds N   the cost phase's loads and window (default 5, 30)
#   --wal-batch-intervals MS[,MS...]   the object WAL's wal.object.batch.interval.ms values to measure
#                     (default: its default only)
#
# Progress goes to stderr, the Markdown report to stdout; JSON and Markdown copies are written to
# bench/target/failover-bench-<timestamp>.{json,md}, the nodes' logs next to them. Every process it
# starts is stopped at the end, also on failure or Ctrl-C (a JVM shutdown hook). Extra JVM flags via
# BENCH_JAVA_OPTS.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/bench-run.sh
. scripts/lib/bench-run.sh
extra=()
rest=()
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds|--wal|--rate|--phases|--cost-mib-per-second|--cost-seconds|--wal-batch-intervals)
      [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }; extra+=("$1" "$2"); shift 2 ;;
    --no-build) build=0; rest+=("$1"); shift ;;
    *) rest+=("$1"); shift ;;
  esac
done
if [ "$build" = 1 ]; then
  scripts/s3-server.sh versitygw >/dev/null
fi
BENCH_EXTRA_ARGS="${extra[*]:-}"
# Heap: the clients and the loss check's bookkeeping; the brokers are child processes.
bench_run 37 512m io.aloft.bench.failover.FailoverBenchmark servers core s3stream bench -- "${rest[@]+"${rest[@]}"}"
