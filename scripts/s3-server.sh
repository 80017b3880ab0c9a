#!/usr/bin/env bash
# Builds (once) an S3-protocol server for tests and prints its absolute path on the last
# stdout line. Usage: scripts/s3-server.sh [versitygw|minio]   (default: versitygw)
#
# The binary is cached under $HOME/.cache/aloft/bin; a present binary is reused without
# touching the network. Everything else goes to stderr so callers can take the last line.
# Pinned versions: versitygw is a tagged release; MinIO only as a pseudo-version because
# the Go module proxy refuses its release tags.
set -euo pipefail

server="${1:-versitygw}"
cache="${ALOFT_CACHE_DIR:-$HOME/.cache/aloft}"
bin_dir="$cache/bin"

case "$server" in
  versitygw)
    module="github.com/versity/versitygw/cmd/versitygw@v1.8.0"
    binary="versitygw"
    ;;
  minio)
    module="github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c"
    binary="minio"
    ;;
  *)
    echo "s3-server.sh: unknown server '$server' (expected: versitygw or minio)" >&2
    exit 2
    ;;
esac

target="$bin_dir/$binary"
if [[ -x "$target" ]]; then
  echo "$target"
  exit 0
fi

mkdir -p "$bin_dir"
source "$(dirname "$0")/lib/go-env.sh"
go_env s3-server.sh "$cache" "install Go >= 1.22 to build $binary, or put a prebuilt binary at $target (or point ALOFT_VERSITYGW at one)."

# Build into a temp GOBIN and move into place, so a killed build never leaves a half-written
# binary that the next run would mistake for a finished one.
tmp_bin="$(mktemp -d "$bin_dir/.build-XXXXXX")"
trap 'rm -rf "$tmp_bin"' EXIT
echo "s3-server.sh: building $binary ($module) with $(go version); this takes minutes on a cold cache" >&2
start=$(date +%s)
if ! GOBIN="$tmp_bin" go install "$module" >&2; then
  echo "s3-server.sh: 'go install $module' failed (see above)" >&2
  exit 1
fi
mv -f "$tmp_bin/$binary" "$target"
echo "s3-server.sh: built $target in $(( $(date +%s) - start ))s" >&2
echo "$target"
