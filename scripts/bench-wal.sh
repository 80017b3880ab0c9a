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
root=$(pwd)

dir="$root/bench/target"
build=1
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) [ $# -ge 2 ] || { echo "--dir needs a value" >&2; exit 2; }; dir=$2; shift 2 ;;
    --quick) args+=(--quick); shift ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

if [ "$build" = 1 ]; then
  echo "building wal and bench ..." >&2
  mvn -B -q -pl bench -am package -DskipTests
fi

rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain -- wal 2>/dev/null)" ]; then
  rev="$rev+dirty-wal"
fi
mkdir -p "$dir"
# Bounded heap: appenders and the WAL need little; direct buffers come from the same budget.
# shellcheck disable=SC2086
ALOFT_GIT_REV=$rev exec java -Xmx2g -XX:+UseG1GC ${BENCH_JAVA_OPTS:-} \
  -jar "$root/bench/target/aloft-bench.jar" --dir "$dir" --json-dir "$root/bench/target" "${args[@]}"
