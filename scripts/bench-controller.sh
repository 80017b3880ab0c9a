#!/usr/bin/env bash
# Controller benchmark (issue 4): builds core and the bench module, then measures in one run on
# loopback: object-commit throughput and p50/p99 latency with 1 and 3 Ratis voters (1, 16 and 64 commits in
# flight), and the snapshot size and restart time of a voter holding 200k committed objects.
# A harness, not a test: mvn verify never runs it.
#
#   scripts/bench-controller.sh [--dir DIR] [--quick] [--no-build]
#
#   --dir DIR    scratch directory for the voters' logs and snapshots: a fresh sub-directory of DIR,
#                deleted at the end (default: bench/target)
#   --quick      5 s measurements instead of 20 s (about 1 minute instead of 2-3)
#   --no-build   run the jar already in bench/target
#
# Progress goes to stderr, the Markdown report to stdout; JSON and Markdown copies are written to
# bench/target/controller-bench-<timestamp>.{json,md}. Extra JVM flags via BENCH_JAVA_OPTS.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/bench-run.sh
. scripts/lib/bench-run.sh
bench_run 15 2g io.aloft.bench.controller.ControllerBenchmark core -- "$@"
