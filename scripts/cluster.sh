#!/usr/bin/env bash
# Runs a local Aloft cluster on 127.0.0.1: N brokers sharing one controller quorum and one object
# store, each with its own WAL and data directory under the cluster directory.
#
#   scripts/cluster.sh start [N] [--controllers K] [--s3] [--dir DIR] [--set key=value ...] [--no-build]
#       starts N brokers on free ports and prints the bootstrap address (last stdout line). The quorum
#       is 3 voters embedded in brokers 1-3 (1 voter, in broker 1, when N < 3); with --controllers K
#       (1, 3 or 5) it is K dedicated controller processes (process.roles=controller, node ids
#       101..100+K) and the brokers are brokers only. Objects go to DIR/objects (file://), or with
#       --s3 to a bucket on a local versitygw (scripts/s3-server.sh builds it). --set adds a
#       server property to every node. Returns once every broker serves. On a DIR holding a
#       stopped cluster, `start` (N, if given, must match) runs it again on its data, settings and
#       ports; delete DIR (or use another) for a new cluster.
#   scripts/cluster.sh status [--dir DIR]     each node: id, role, pid, address, running or not
#   scripts/cluster.sh stop [--dir DIR]       SIGTERM to every node (brokers first; those embedding a
#                                             voter all at once, so the voters keep a quorum while
#                                             they upload), then the object store; DIR is kept
#   scripts/cluster.sh kill ID [--dir DIR]    SIGKILL node ID (by the pid this script recorded)
#   scripts/cluster.sh restart ID [--dir DIR] stops node ID if it runs (SIGTERM), starts it again
#                                             on the same data and ports, returns once it serves
#   scripts/cluster.sh add [--dir DIR] [--set key=value ...] [--no-build]
#       starts one more broker (broker only, never a voter) in the running cluster: node id one above
#       the highest broker id, fresh ports, the quorum, object store, sizing and --set extras of an
#       existing broker (plus those given here). Returns once it serves and prints "ID ADDRESS"
#       (last stdout line).
#   scripts/cluster.sh remove ID [--dir DIR]  SIGTERMs broker ID (its graceful drain: its partitions
#                                             move to other brokers, it uploads and leaves the
#                                             cluster's metadata), waits for its exit, then moves
#                                             its directory to DIR/removed/node-ID-<UTC time>, so a
#                                             `start` on DIR does not bring it back. Refuses (exit 2)
#                                             a node with a controller voter or a dedicated
#                                             controller; keeps the directory (exit 1) when the node
#                                             does not run or did not stop gracefully.
# DIR defaults to $ALOFT_CLUSTER_DIR or ./cluster.
# JVM options per node: ALOFT_HEAP_OPTS (default -Xms256m -Xmx768m; the properties this script
# writes size the WAL and caches for that), ALOFT_GC_OPTS (default -XX:+UseZGC), ALOFT_JVM_OPTS.
# ALOFT_CLUSTER_START_TIMEOUT (seconds, default 120) bounds the wait for nodes to serve;
# ALOFT_CLUSTER_STOP_TIMEOUT (seconds, default 60) the wait for a node to stop before SIGKILL.
# ALOFT_CLASSPATH replaces the broker jar's class path (tests run the classes they built).
# Exit status: 0 done, 1 failed (the node's log is named), 2 bad arguments or a node `remove` refuses.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

usage() { sed -n '2,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() {
  echo "cluster.sh: $*" >&2
  # A start that fails leaves nothing running: the nodes it launched and its object store go.
  # An `add` that fails leaves no half-started broker: it is stopped and its directory set aside.
  if [ -n "${adding:-}" ]; then
    if alive "$adding"; then kill -KILL "$(cat "$adding/pid")" 2>/dev/null || true; fi
    rm -f "$adding/pid"
    mkdir -p "$dir/removed"
    mv "$adding" "$dir/removed/$(basename "$adding")-failed-$(date -u +%Y%m%dT%H%M%SZ)" 2>/dev/null || true
  fi
  if [ "${starting:-0}" = 1 ]; then
    local n
    for n in $(node_dirs) "$dir/s3"; do
      if alive "$n"; then kill -KILL "$(cat "$n/pid")" 2>/dev/null || true; fi
      rm -f "$n/pid"
    done
  fi
  exit 1
}

[ $# -ge 1 ] || usage
cmd="$1"; shift
dir="${ALOFT_CLUSTER_DIR:-$PWD/cluster}"
count=""; controllers=0; s3=0; build=1; node=""
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) [ $# -ge 2 ] || usage; dir="$2"; shift 2 ;;
    --controllers) [ $# -ge 2 ] || usage; controllers="$2"; shift 2 ;;
    --s3) s3=1; shift ;;
    --set) [ $# -ge 2 ] || usage; extra+=("$2"); shift 2 ;;
    --no-build) build=0; shift ;;
    -*) echo "cluster.sh: unknown option $1" >&2; usage ;;
    *)
      if [ "$cmd" = start ] && [ -z "$count" ]; then count="$1"
      elif { [ "$cmd" = kill ] || [ "$cmd" = restart ] || [ "$cmd" = remove ]; } && [ -z "$node" ]; then node="$1"
      else echo "cluster.sh: unexpected argument $1" >&2; usage; fi
      shift ;;
  esac
done
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
timeout="${ALOFT_CLUSTER_START_TIMEOUT:-120}"
stop_timeout="${ALOFT_CLUSTER_STOP_TIMEOUT:-60}"
classpath="${ALOFT_CLASSPATH:-$root/core/target/aloft-core.jar:$root/core/target/lib/*}"

# ---- helpers ----

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

alive() { [ -f "$1/pid" ] && kill -0 "$(cat "$1/pid")" 2>/dev/null; }

node_dirs() { find "$dir" -maxdepth 1 -type d -name 'node-*' | sort -V; }

prop() { sed -n "s/^$2=//p" "$1/server.properties" | head -1; }

role_of() { local r; r="$(prop "$1" process.roles)"; echo "${r:-broker,controller}"; }

# Starts the node in $1 in the background and records its pid; its output is appended to node.log.
launch() {
  local n="$1"
  echo "=== start $(date -u +%FT%TZ)" >>"$n/node.log"
  # setsid: the node is not in this shell's process group, so a Ctrl-C here does not stop it.
  # shellcheck disable=SC2086
  setsid java ${ALOFT_HEAP_OPTS:--Xms256m -Xmx768m} ${ALOFT_GC_OPTS:--XX:+UseZGC} ${ALOFT_JVM_OPTS:-} \
    -Dlog4j2.shutdownHookEnabled=false -Dlog4j2.configurationFile="$root/config/log4j2.xml" \
    -cp "$classpath" io.aloft.broker.BrokerMain \
    "$n/server.properties" </dev/null >>"$n/node.log" 2>&1 &
  echo $! >"$n/pid"
  wc -l <"$n/node.log" >"$n/started-at-line"
}

# Waits until the node in $1 logs that it serves (after the line recorded at launch).
await_serving() {
  local n="$1" deadline=$((SECONDS + timeout)) from pattern
  from="$(cat "$n/started-at-line")"
  if [ "$(role_of "$n")" = controller ]; then pattern='Controller node [0-9]* started'
  else pattern='Broker [0-9]* of cluster .* started'; fi
  while ! tail -n +"$((from + 1))" "$n/node.log" | grep -q "$pattern"; do
    alive "$n" || die "$(basename "$n") exited while starting; see $n/node.log"
    [ $SECONDS -lt $deadline ] || die "$(basename "$n") not serving after ${timeout}s; see $n/node.log"
    sleep 0.2
  done
}

# Sends signal $2 to the node in $1 if it runs.
signal_node() {
  local n="$1" sig="$2"
  alive "$n" || { rm -f "$n/pid"; return 0; }
  kill "-$sig" "$(cat "$n/pid")" 2>/dev/null || true
}

# Waits until the node in $1 has exited; after $stop_timeout seconds SIGKILLs it, saying why that
# loses nothing: what it acknowledged and had not uploaded is in its WAL, recovered at its next start.
await_exit() {
  local n="$1" pid deadline=$((SECONDS + stop_timeout))
  [ -f "$n/pid" ] || return 0
  pid="$(cat "$n/pid")"
  while kill -0 "$pid" 2>/dev/null; do
    if [ $SECONDS -ge $deadline ]; then
      echo "cluster.sh: $(basename "$n") did not stop within ${stop_timeout}s (its quorum may be gone);" \
        "SIGKILL: what it had not uploaded stays in its WAL for its next start" >&2
      kill -KILL "$pid" 2>/dev/null || true
      deadline=$((SECONDS + 3600))
    fi
    sleep 0.2
  done
  rm -f "$n/pid"
}

bootstrap() {
  local out=() n
  for n in $(node_dirs); do
    [ "$(role_of "$n")" = controller ] || out+=("127.0.0.1:$(prop "$n" listeners | sed 's/.*://')")
  done
  (IFS=,; echo "${out[*]}")
}

# Starts versitygw on the port and keys saved in DIR/s3/env; waits until it answers.
launch_s3() {
  local s3dir="$dir/s3" bin port key secret
  # shellcheck disable=SC1091
  . "$s3dir/env"
  bin="$("$root/scripts/s3-server.sh" versitygw | tail -1)"
  setsid "$bin" --access "$key" --secret "$secret" --port "127.0.0.1:$port" posix "$s3dir/data" \
    </dev/null >>"$s3dir/versitygw.log" 2>&1 &
  echo $! >"$s3dir/pid"
  local deadline=$((SECONDS + 30)) code
  while true; do
    code="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/" || true)"
    [ "$code" != 000 ] && [ "$code" != 503 ] && break
    alive "$s3dir" || die "versitygw exited; see $s3dir/versitygw.log"
    [ $SECONDS -lt $deadline ] || die "versitygw not ready in 30 s; see $s3dir/versitygw.log"
    sleep 0.2
  done
}

# A new versitygw with fresh keys and the bucket "aloft"; prints the s3.url for it.
create_s3() {
  local s3dir="$dir/s3" port key secret
  mkdir -p "$s3dir/data"
  port="$(free_port)"
  key="aloft$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
  secret="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  printf 'port=%s\nkey=%s\nsecret=%s\n' "$port" "$key" "$secret" >"$s3dir/env"
  launch_s3
  curl -sf --aws-sigv4 "aws:amz:us-east-1:s3" --user "$key:$secret" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
    -X PUT "http://127.0.0.1:$port/aloft" >/dev/null \
    || die "could not create the bucket on versitygw; see $s3dir/versitygw.log"
  echo "s3://aloft?endpoint=http://127.0.0.1:$port&region=us-east-1&pathStyle=true&accessKey=$key&secretKey=$secret"
}

# Builds the broker jar unless --no-build; with --no-build, only if it is missing and ALOFT_CLASSPATH
# does not replace it.
build_core() {
  if [ "$build" = 1 ] || { [ -z "${ALOFT_CLASSPATH:-}" ] && [ ! -f "$root/core/target/aloft-core.jar" ]; }; then
    (cd "$root" && mvn -B -q -pl core -am package -DskipTests >&2)
  fi
}

# ---- commands ----

cmd_start() {
  local n
  for n in $(node_dirs); do
    alive "$n" && die "$(basename "$n") of the cluster in $dir is running; stop it first"
  done
  if [ -n "$(node_dirs)" ]; then
    restart_all
    return
  fi
  [[ "$count" =~ ^[1-9][0-9]*$ ]] || { echo "cluster.sh: start needs a broker count" >&2; usage; }
  [[ "$controllers" =~ ^(0|1|3|5)$ ]] || { echo "cluster.sh: --controllers is 1, 3 or 5" >&2; usage; }
  build_core
  rm -rf "$dir"/node-* "$dir/s3"
  starting=1
  local url ids=() roles=() i id voters=() vcount
  if [ "$s3" = 1 ]; then url="$(create_s3)"; else mkdir -p "$dir/objects"; url="file://$dir/objects"; fi
  if [ "$controllers" -gt 0 ]; then
    for ((i = 1; i <= controllers; i++)); do ids+=($((100 + i))); roles+=(controller); done
    for ((i = 1; i <= count; i++)); do ids+=("$i"); roles+=(broker); done
    vcount="$controllers"
  else
    vcount=$([ "$count" -ge 3 ] && echo 3 || echo 1)
    for ((i = 1; i <= count; i++)); do
      ids+=("$i"); roles+=("$([ "$i" -le "$vcount" ] && echo broker,controller || echo broker)")
    done
  fi
  for ((i = 0; i < ${#ids[@]}; i++)); do
    [ "${roles[$i]}" = broker ] || voters+=("${ids[$i]}@127.0.0.1:$(free_port)")
  done
  local quorum; quorum="$(IFS=,; echo "${voters[*]}")"
  for ((i = 0; i < ${#ids[@]}; i++)); do
    id="${ids[$i]}"; n="$dir/node-$id"
    mkdir -p "$n/data"
    {
      echo "# Generated by scripts/cluster.sh start $count: node $id of a local cluster"
      echo "node.id=$id"
      echo "process.roles=${roles[$i]}"
      echo "controller.quorum.voters=$quorum"
      echo "aloft.data.dir=$n/data"
      echo "metrics.listener=http://127.0.0.1:$(free_port)"
      if [ "${roles[$i]}" != controller ]; then
        echo "listeners=PLAINTEXT://127.0.0.1:$(free_port)"
        echo "s3.url=$url"
        # Sized for ALOFT_HEAP_OPTS' default, several nodes on one machine.
        echo "wal.capacity.bytes=$((256 << 20))"
        echo "s3.log.cache.size.bytes=$((64 << 20))"
        echo "s3.block.cache.size.bytes=$((64 << 20))"
        echo "s3.wal.upload.threshold.bytes=$((16 << 20))"
        echo "group.initial.rebalance.delay.ms=0"
      fi
      local kv
      for kv in "${extra[@]+"${extra[@]}"}"; do echo "$kv"; done
    } >"$n/server.properties"
  done
  # All at once: a broker with an embedded voter waits for the quorum, which needs its peers.
  for id in "${ids[@]}"; do launch "$dir/node-$id"; done
  for id in "${ids[@]}"; do await_serving "$dir/node-$id"; done
  starting=0
  echo "cluster.sh: ${#ids[@]} nodes running under $dir (quorum $quorum); bootstrap:" >&2
  bootstrap
}

# Starts a stopped cluster again on its data, settings and ports (`start` on a DIR that holds one).
restart_all() {
  local n brokers=0 ctrls=0 ids=()
  for n in $(node_dirs); do
    if [ "$(role_of "$n")" = controller ]; then ctrls=$((ctrls + 1)); else brokers=$((brokers + 1)); fi
  done
  local mismatch=0
  [ -n "$count" ] && [ "$count" != "$brokers" ] && mismatch=1
  [ "$controllers" -gt 0 ] && [ "$controllers" != "$ctrls" ] && mismatch=1
  if [ "$mismatch" = 1 ]; then
    die "$dir holds a cluster of $brokers brokers and $ctrls dedicated controllers; start it with no count" \
      "to run it again, or delete it (or use another --dir) for a new one"
  fi
  build_core
  starting=1
  if [ -f "$dir/s3/env" ]; then launch_s3; fi
  for n in $(node_dirs); do launch "$n"; done
  for n in $(node_dirs); do await_serving "$n"; done
  starting=0
  echo "cluster.sh: the cluster in $dir runs again ($brokers brokers); bootstrap:" >&2
  bootstrap
}

cmd_status() {
  local n state any=0
  printf '%-6s %-18s %-8s %-22s %s\n' node roles pid address state
  for n in $(node_dirs); do
    any=1
    if alive "$n"; then state=running; else state=stopped; fi
    local addr; addr="$(prop "$n" listeners | sed 's|.*//||')"
    printf '%-6s %-18s %-8s %-22s %s\n' "$(basename "$n" | sed 's/node-//')" "$(role_of "$n")" \
      "$( [ -f "$n/pid" ] && cat "$n/pid" || echo -)" "${addr:--}" "$state"
  done
  [ "$any" = 1 ] || { echo "cluster.sh: no cluster in $dir" >&2; exit 1; }
  if [ -f "$dir/s3/pid" ]; then
    if alive "$dir/s3"; then echo "versitygw: running (pid $(cat "$dir/s3/pid"))"; else echo "versitygw: stopped"; fi
  fi
}

cmd_stop() {
  local n voters=() plain=() controllers=()
  for n in $(node_dirs); do
    case "$(role_of "$n")" in
      controller) controllers+=("$n") ;;
      broker) plain+=("$n") ;;
      *) voters+=("$n") ;;
    esac
  done
  # Brokers without a voter first, while the whole quorum is there for their drain and uploads; then
  # the brokers with one, all at once, so that their voters keep a quorum while each of them uploads
  # (stopped one by one, the last would have none); then dedicated controllers.
  for n in "${plain[@]+"${plain[@]}"}"; do signal_node "$n" TERM; done
  for n in "${plain[@]+"${plain[@]}"}"; do await_exit "$n"; done
  for n in "${voters[@]+"${voters[@]}"}"; do signal_node "$n" TERM; done
  for n in "${voters[@]+"${voters[@]}"}"; do await_exit "$n"; done
  for n in "${controllers[@]+"${controllers[@]}"}"; do signal_node "$n" TERM; done
  for n in "${controllers[@]+"${controllers[@]}"}"; do await_exit "$n"; done
  if [ -f "$dir/s3/pid" ]; then signal_node "$dir/s3" TERM; await_exit "$dir/s3"; fi
  echo "cluster.sh: stopped the cluster in $dir" >&2
}

node_dir() {
  [[ "$node" =~ ^[0-9]+$ ]] || { echo "cluster.sh: $cmd needs a node id" >&2; usage; }
  [ -d "$dir/node-$node" ] || die "no node $node in $dir"
  echo "$dir/node-$node"
}

cmd_kill() {
  local n; n="$(node_dir)"
  alive "$n" || die "node $node is not running"
  kill -KILL "$(cat "$n/pid")"
  await_exit "$n"
  echo "cluster.sh: node $node killed (SIGKILL)" >&2
}

cmd_restart() {
  local n; n="$(node_dir)"
  if alive "$n"; then signal_node "$n" TERM; await_exit "$n"; fi
  launch "$n"
  await_serving "$n"
  echo "cluster.sh: node $node serving again (pid $(cat "$n/pid"))" >&2
}

# The broker whose settings a new broker copies: the highest broker-only node, else the highest
# node embedding a broker. Prints its directory.
template_node() {
  local n best="" fallback=""
  for n in $(node_dirs); do
    case "$(role_of "$n")" in
      broker) best="$n" ;;
      controller) ;;
      *) fallback="$n" ;;
    esac
  done
  echo "${best:-$fallback}"
}

cmd_add() {
  local n template id=0 i running=0
  for n in $(node_dirs); do alive "$n" && running=1; done
  [ "$running" = 1 ] || die "no node of the cluster in $dir runs; start it first"
  template="$(template_node)"
  [ -n "$template" ] || die "no broker in $dir to copy settings from"
  for n in $(node_dirs); do
    [ "$(role_of "$n")" = controller ] && continue
    i="$(basename "$n" | sed 's/node-//')"
    [ "$i" -gt "$id" ] && id="$i"
  done
  id=$((id + 1))
  # Dedicated controllers hold ids 101 and up.
  [ -e "$dir/node-$id" ] && die "node id $id is taken in $dir (a dedicated controller?)"
  build_core
  n="$dir/node-$id"
  # mkdir without -p claims the id: an `add` running at the same time fails here rather than share it.
  mkdir "$n" || die "node id $id is taken in $dir (another add running?)"
  adding="$n"
  mkdir -p "$n/data"
  local port; port="$(free_port)"
  {
    echo "# Generated by scripts/cluster.sh add: node $id of a local cluster, settings of $(basename "$template")"
    echo "node.id=$id"
    echo "process.roles=broker"
    echo "aloft.data.dir=$n/data"
    echo "metrics.listener=http://127.0.0.1:$(free_port)"
    echo "listeners=PLAINTEXT://127.0.0.1:$port"
    # Everything else the template has (quorum, s3.url, sizing, --set extras), but not what is its own.
    grep -v -E '^(#|node\.id=|process\.roles=|aloft\.data\.dir=|metrics\.listener=|listeners=)' \
      "$template/server.properties" || true
    local kv
    for kv in "${extra[@]+"${extra[@]}"}"; do echo "$kv"; done
  } >"$n/server.properties"
  launch "$n"
  await_serving "$n"
  adding=""
  echo "cluster.sh: broker $id serving under $n (pid $(cat "$n/pid")); id and address:" >&2
  echo "$id 127.0.0.1:$port"
}

cmd_remove() {
  local n; n="$(node_dir)"
  case "$(role_of "$n")" in
    broker) ;;
    controller)
      echo "cluster.sh: node $node is a dedicated controller (a quorum voter); remove removes brokers only" >&2
      exit 2 ;;
    *)
      echo "cluster.sh: node $node embeds a controller voter ($(role_of "$n")); removing it would shrink" \
        "the quorum" >&2
      exit 2 ;;
  esac
  # A node that does not run may hold acknowledged data only in its WAL (if it was killed), which its
  # next start recovers and uploads: its directory must stay.
  alive "$n" || die "node $node is not running; start it (restart $node) so that it drains, then remove it"
  local from; from="$(cat "$n/started-at-line")"
  signal_node "$n" TERM
  await_exit "$n"
  # The broker logs this line only at the end of a graceful close (drained, uploaded, left the
  # metadata); without it (SIGKILLed after the stop timeout, crashed) its WAL may hold data.
  tail -n +"$((from + 1))" "$n/node.log" | grep -q "Broker $node stopped" \
    || die "node $node did not stop gracefully; its directory stays (its WAL may hold data its next" \
      "start uploads); see $n/node.log"
  mkdir -p "$dir/removed"
  local to; to="$dir/removed/node-$node-$(date -u +%Y%m%dT%H%M%SZ)"
  mv "$n" "$to"
  echo "cluster.sh: broker $node drained, stopped and removed; its directory is now:" >&2
  echo "$to"
}

case "$cmd" in
  start) cmd_start ;;
  status) cmd_status ;;
  stop) cmd_stop ;;
  kill) cmd_kill ;;
  restart) cmd_restart ;;
  add) cmd_add ;;
  remove) cmd_remove ;;
  *) usage ;;
esac
