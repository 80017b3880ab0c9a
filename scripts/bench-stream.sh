#!/usr/bin/env bash
# Stream store benchmark (issue 3): builds s3stream and the bench module, starts its own versitygw on
# loopback (random keys, data under the scratch directory), and measures in one run: ingest throughput
# and S3 PUT requests per GiB with default settings, cold catch-up read vs plain GETs of the same
# objects, and tail append p99 alone vs beside uploads and a catch-up read.
# A harness, not a test: mvn verify never runs it.
#
#   scripts/bench-stream.sh [--dir DIR] [--quick] [--no-build]
#
#   --dir DIR    scratch file system for the 2 GiB WAL file and versitygw's data: a fresh sub-directory
#                of DIR, deleted at the end (default: bench/target)
#   --quick      0.5 GiB ingest and 5 s latency phases, ≤ 90 s; the full run is ≤ 5 min
#   --no-build   run the jar already in bench/target
#
# Needs versitygw in $ALOFT_VERSITYGW or ~/.cache/aloft/bin/versitygw (scripts/s3-server.sh versitygw).
# Progress goes to stderr, the Markdown report to stdout; JSON and Markdown copies are written to
# bench/target/stream-bench-<timestamp>.{json,md}. Extra JVM flags (e.g. JFR) via BENCH_JAVA_OPTS.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

dir="$root/bench/target"
build=1
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) [ $# -ge 2 ] || { echo "--dir needs a value" >&2; exit 2; }; dir=$2; shift 2 ;;
    --quick) args+=(--quick); shift ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

if [ "$build" = 1 ]; then
  echo "building s3stream and bench ..." >&2
  mvn -B -q -pl bench -am package -DskipTests
fi

rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- wal s3stream 2>/dev/null)" ]; then
  rev="$rev+dirty"
fi
mkdir -p "$dir"
# Heap: log cache 256 MiB + block cache 128 MiB + whole-object GETs and in-flight uploads.
# shellcheck disable=SC2086
ALOFT_GIT_REV=$rev exec java -Xmx3g -XX:+UseG1GC ${BENCH_JAVA_OPTS:-} \
  -cp "$root/bench/target/aloft-bench.jar" io.aloft.bench.stream.StreamBenchmark \
  --dir "$dir" --json-dir "$root/bench/target" "${args[@]}"
