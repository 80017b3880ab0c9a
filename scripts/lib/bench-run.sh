# Shared by scripts/bench-*.sh (sourced, not run): parses the common options, builds the bench
# module unless --no-build, and runs one benchmark main class.
#
#   bench_run HELP_LAST_LINE HEAP MAIN_CLASS DIRTY_PATHS... -- "$@"
#
# A script with options of its own takes them out of "$@" and passes them in BENCH_EXTRA_ARGS.
bench_run() {
  local help_last=$1 heap=$2 main=$3
  shift 3
  local paths=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do paths+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  local root dir build=1 args=()
  root=$(pwd)
  dir="$root/bench/target"
  while [ $# -gt 0 ]; do
    case "$1" in
      --dir) [ $# -ge 2 ] || { echo "--dir needs a value" >&2; exit 2; }; dir=$2; shift 2 ;;
      --quick) args+=(--quick); shift ;;
      --no-build) build=0; shift ;;
      -h|--help) sed -n "2,${help_last}p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
      *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
  done
  if [ "$build" = 1 ]; then
    echo "building ${paths[*]} and bench ..." >&2
    mvn -B -q -pl bench -am package -DskipTests
  fi
  local rev
  rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  if [ -n "$(git status --porcelain -- "${paths[@]}" 2>/dev/null)" ]; then
    rev="$rev+dirty"
  fi
  mkdir -p "$dir"
  # shellcheck disable=SC2086
  ALOFT_GIT_REV=$rev exec java "-Xmx$heap" -XX:+UseG1GC ${BENCH_JAVA_OPTS:-} \
    -cp "$root/bench/target/aloft-bench.jar" "$main" \
    --dir "$dir" --json-dir "$root/bench/target" "${args[@]}" ${BENCH_EXTRA_ARGS:-}
}
