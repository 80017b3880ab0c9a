#!/usr/bin/env bash
# Builds (once) Prometheus' promtool, which the metrics tests run as `promtool check metrics` on a
# broker's /metrics (the exposition checked by Prometheus' own parser and linter), and prints its
# absolute path on the last stdout line. Built from the Go module proxy at the pinned version below
# (about 5 minutes the first time), cached as $HOME/.cache/aloft/bin/promtool-<version>; a present
# binary is reused without touching the network. Everything else goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
version="v0.316.0"  # github.com/prometheus/prometheus; keep in step with PromTool.java
cache="${ALOFT_CACHE_DIR:-$HOME/.cache/aloft}"
bin_dir="$cache/bin"
target="$bin_dir/promtool-$version"
if [[ -x "$target" ]]; then
  echo "$target"
  exit 0
fi

mkdir -p "$bin_dir"
source scripts/lib/go-env.sh
go_env promtool.sh "$cache" "install Go to build promtool for the metrics tests"
# Install into a temp dir and rename, so a killed build never leaves a binary the next run would trust.
tmp="$(mktemp -d "$bin_dir/.promtool-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
echo "promtool.sh: building promtool $version with $(go version)" >&2
start=$(date +%s)
if ! GOBIN="$tmp" go install "github.com/prometheus/prometheus/cmd/promtool@$version" >&2; then
  echo "promtool.sh: 'go install' of promtool $version failed (see above)" >&2
  exit 1
fi
mv -f "$tmp/promtool" "$target"
echo "promtool.sh: built $target in $(( $(date +%s) - start ))s" >&2
echo "$target"
