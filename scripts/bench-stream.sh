#!/usr/bin/env bash
# Stream store benchmark (issue 3): builds s3stream and the bench module, starts its own versitygw on
# loopback (random keys, data under the scratch directory), and measures in one run: ingest throughput
# and S3 PUT requests per GiB with default settings, cold catch-up read vs plain GETs of the same
# objects (three rounds, each on a fresh store; the median is reported), tail append p99 alone vs
# beside uploads and a catch-up read, and append latency at a steady 10 MiB/s across seals (during
# an upload PUT and not).
# A harness, not a test: mvn verify never runs it.
#
#   scripts/bench-stream.sh [--dir DIR] [--quick] [--no-build]
#
#   --dir DIR    scratch file system for the 2 GiB WAL file and versitygw's data: a fresh sub-directory
#                of DIR, deleted at the end (default: bench/target)
#   --quick      0.5 GiB ingest, 5 s latency phases and 30 s across seals, ≤ 2 min; the full run is ≤ 7 min
#   --no-build   run the jar already in bench/target
#
# Needs versitygw in $ALOFT_VERSITYGW or ~/.cache/aloft/bin/versitygw (scripts/s3-server.sh versitygw).
# Progress goes to stderr, the Markdown report to stdout; JSON and Markdown copies are written to
# bench/target/stream-bench-<timestamp>.{json,md}. Extra JVM flags (e.g. JFR) via BENCH_JAVA_OPTS.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/bench-run.sh
. scripts/lib/bench-run.sh
# Heap: log cache 256 MiB + block cache 128 MiB + whole-object GETs and in-flight uploads.
bench_run 19 3g io.aloft.bench.stream.StreamBenchmark wal s3stream -- "$@"
