#!/usr/bin/env bash
# WAL benchmark (issue 2): builds the WAL and the bench module, then measures, in one run on one file
# system, raw O_DIRECT|O_DSYNC write bandwidth and the WAL's append throughput and latency.
# A harness, not a test: mvn verify never runs it.
#
#   scripts/bench-wal.sh [--dir DIR] [--quick] [--no-build]
#
#   --dir DIR    file system to measure: up to 2 GiB of scratch files go in a fresh sub-directory of DIR,
#                deleted at the end (default: bench/target)
#   --quick      ~1 minute instead of ~4
#   --no-build   run the jar already in bench/target
#
# Progress goes to stderr, the Markdown report to stdout; JSON and Markdown copies are written to
# bench/target/wal-bench-<timestamp>.{json,md}. Extra JVM flags (e.g. JFR) via BENCH_JAVA_OPTS.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/bench-run.sh
. scripts/lib/bench-run.sh
# Bounded heap: appenders and the WAL need little; direct buffers come from the same budget.
bench_run 14 2g io.aloft.bench.wal.WalBenchmark wal -- "$@"
