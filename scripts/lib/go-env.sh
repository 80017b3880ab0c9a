# Shared by the scripts that build Go programs (sourced, not run): finds the Go toolchain and keeps
# Go's caches under Aloft's cache dir, so a fresh machine (or a read-only $HOME/go) works, with
# pure-Go builds (no C compiler needed) and only the settings that cannot break a pinned build.
#
#   go_env SCRIPT_NAME CACHE_DIR "what to tell the user when Go is missing"
# Exits 1 naming SCRIPT_NAME when there is no Go toolchain.
go_env() {
  local name=$1 cache=$2 missing=$3
  if ! command -v go >/dev/null 2>&1; then
    for candidate in /usr/local/go/bin/go /usr/lib/go/bin/go; do
      if [[ -x "$candidate" ]]; then PATH="$(dirname "$candidate"):$PATH"; break; fi
    done
  fi
  if ! command -v go >/dev/null 2>&1; then
    echo "$name: the Go toolchain ('go') is not on PATH; $missing" >&2
    exit 1
  fi
  export GOPATH="${GOPATH:-$cache/go}"
  export GOMODCACHE="${GOMODCACHE:-$GOPATH/pkg/mod}"
  export GOCACHE="${GOCACHE:-$cache/go-build}"
  # -buildvcs=false: builds happen outside any VCS checkout we care about.
  export GOFLAGS="${GOFLAGS:--buildvcs=false}"
  export CGO_ENABLED="${CGO_ENABLED:-0}"
  mkdir -p "$GOPATH" "$GOCACHE"
}
