#!/usr/bin/env bash
# The container image's entrypoint (/opt/aloft/bin/aloft-container.sh): builds the broker's
# server.properties from a mounted file and the environment, then execs the JVM, so that the
# container's SIGTERM reaches the broker itself (graceful drain: its partitions move to other
# brokers, its data is uploaded; exit status 143).
#
#   aloft-container.sh [broker]          runs the broker (the default)
#   aloft-container.sh config            prints the server.properties the broker would get, and exits
#   aloft-container.sh autoscaler ARGS   runs the autoscaler (io.aloft.autoscaler.AutoscalerMain ARGS;
#                                        see bin/aloft-autoscaler.sh for its commands)
#
# server.properties is, in this order (a later line wins, as java.util.Properties reads it):
#   1. the file $ALOFT_CONFIG_FILE (default /etc/aloft/server.properties; the default may be absent,
#      a file named in ALOFT_CONFIG_FILE must exist);
#   2. every ALOFT_PROP_<KEY>=value: the key lower-cased, a single _ read as a dot and a double __ as
#      one underscore (ALOFT_PROP_S3_URL -> s3.url, ALOFT_PROP_MY__KEY_X -> my_key.x). An empty
#      value is refused (a key meant to be empty goes in the file);
#   3. node.id: ALOFT_NODE_ID if set, else ALOFT_PROP_NODE_ID, else the file's node.id, else the
#      pod ordinal ending HOSTNAME (aloft-broker-2 -> 2) plus ALOFT_NODE_ID_OFFSET (default 0).
# In every value, ${NODE_ID}, ${POD_NAME} (env POD_NAME, else HOSTNAME) and ${POD_NAMESPACE} (env
# POD_NAMESPACE) are replaced, e.g. ALOFT_PROP_ADVERTISED_LISTENERS=
# 'PLAINTEXT://${POD_NAME}.aloft-broker.${POD_NAMESPACE}.svc:9092'. The file written goes to
# $ALOFT_GENERATED_CONFIG (default: a new file under ${TMPDIR:-/tmp}).
#
# JVM options: ALOFT_HEAP_OPTS (default -Xms1g -Xmx3g; fit it to the container's memory limit),
# ALOFT_GC_OPTS (default -XX:+UseZGC), ALOFT_JVM_OPTS (extra flags); the autoscaler's heap:
# ALOFT_AUTOSCALER_HEAP_OPTS (default -Xmx256m). Logging: ALOFT_LOG4J_CONFIG (default
# config/log4j2.xml next to bin/: to stdout). Class path: ALOFT_CLASSPATH, else the image's
# /opt/aloft/libs/*, else this repository's built jars (core/target, autoscaler/target).
# Exit status: 2 and a line naming the variable when the environment is wrong; otherwise the JVM's
# (143 after SIGTERM and a graceful shutdown; the broker's own: 1 start-up failed, 2 bad setting,
# 3 critical failure).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

die() { echo "aloft-container.sh: $*" >&2; exit 2; }

java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
log4j="${ALOFT_LOG4J_CONFIG:-$root/config/log4j2.xml}"

# The class path of $1 (broker or autoscaler): ALOFT_CLASSPATH, the image's, or the repository's.
classpath() {
  if [ -n "${ALOFT_CLASSPATH:-}" ]; then echo "$ALOFT_CLASSPATH"
  elif [ -d "$root/libs" ]; then echo "$root/libs/*"
  elif [ "$1" = autoscaler ]; then echo "$root/autoscaler/target/aloft-autoscaler.jar:$root/autoscaler/target/lib/*"
  else echo "$root/core/target/aloft-core.jar:$root/core/target/lib/*"; fi
}

mode="${1:-broker}"
[ $# -eq 0 ] || shift
case "$mode" in
  autoscaler)
    # shellcheck disable=SC2086
    exec "$java_bin" ${ALOFT_AUTOSCALER_HEAP_OPTS:--Xmx256m} ${ALOFT_JVM_OPTS:-} \
      -Dlog4j2.configurationFile="$log4j" -cp "$(classpath autoscaler)" io.aloft.autoscaler.AutoscalerMain "$@" ;;
  broker | config) [ $# -eq 0 ] || die "$mode takes no arguments (configure it through the environment)" ;;
  *) die "unknown mode '$mode': broker (default), config or autoscaler" ;;
esac

is_count() { [[ "$1" =~ ^[0-9]+$ ]] && [ "${#1}" -le 9 ]; }

# ---- 1. the mounted file ----
config_file="${ALOFT_CONFIG_FILE:-/etc/aloft/server.properties}"
file_content=""
if [ -f "$config_file" ]; then
  [ -r "$config_file" ] || die "ALOFT_CONFIG_FILE: $config_file is not readable"
  file_content="$(cat "$config_file")"
elif [ -n "${ALOFT_CONFIG_FILE:-}" ]; then
  die "ALOFT_CONFIG_FILE: $config_file does not exist"
fi

# ---- 2. ALOFT_PROP_* ----
env_lines=""
env_node_id=""
while IFS= read -r var; do
  name="${var#ALOFT_PROP_}"
  [ -n "$name" ] || die "ALOFT_PROP_ names no key"
  [[ "$name" =~ ^[A-Za-z0-9_]+$ ]] || die "$var: a key is letters, digits and underscores"
  value="${!var}"
  [ -n "$value" ] || die "$var is empty: give it a value, or put the key in $config_file"
  key="${name,,}"
  key="${key//__/$'\x01'}"
  key="${key//_/.}"
  key="${key//$'\x01'/_}"
  [[ "$key" =~ ^[a-z0-9_]+(\.[a-z0-9_]+)*$ ]] || die "$var: '$key' is not a key (a _ at the start or end, or two dots)"
  [ "$key" != node.id ] || env_node_id="$value"
  # Properties escapes: a backslash stands for itself, a line break is written \n.
  value="${value//\\/\\\\}"
  value="${value//$'\n'/\\n}"
  env_lines+="$key=$value"$'\n'
done < <(compgen -e | grep '^ALOFT_PROP_' | sort || true)

# ---- 3. node.id ----
node_id_from() {
  local var="$1" value="$2"
  is_count "$value" || die "$var must be a node id (a number from 0), not '$value'"
  echo "$((10#$value))"
}
if [ -n "${ALOFT_NODE_ID:-}" ]; then node_id="$(node_id_from ALOFT_NODE_ID "$ALOFT_NODE_ID")"
elif [ -n "$env_node_id" ]; then node_id="$(node_id_from ALOFT_PROP_NODE_ID "$env_node_id")"
else
  # The file's node.id (its last, as Properties reads it), if it has one.
  file_node_id="$(sed -n 's/^[[:space:]]*node\.id[[:space:]]*[=:[:space:]][[:space:]]*//p' <<<"$file_content" | tail -1)"
  file_node_id="${file_node_id%"${file_node_id##*[![:space:]]}"}"
  if [ -n "$file_node_id" ]; then node_id="$(node_id_from "node.id in $config_file" "$file_node_id")"
  else
    host="${HOSTNAME:-}"
    [[ "$host" =~ -([0-9]+)$ ]] \
      || die "ALOFT_NODE_ID is not set and HOSTNAME '$host' ends in no pod ordinal (NAME-<n>): set ALOFT_NODE_ID, or node.id in $config_file"
    ordinal="${BASH_REMATCH[1]}"
    offset="${ALOFT_NODE_ID_OFFSET:-0}"
    is_count "$offset" || die "ALOFT_NODE_ID_OFFSET must be a number from 0, not '$offset'"
    is_count "$ordinal" || die "HOSTNAME '$host': pod ordinal $ordinal is too large"
    node_id="$((10#$ordinal + 10#$offset))"
  fi
fi

# ---- placeholders ----
content="$file_content"$'\n'"$env_lines"
pod_name="${POD_NAME:-${HOSTNAME:-}}"
if [[ "$content" == *'${POD_NAME}'* ]] && [ -z "$pod_name" ]; then
  die "a value uses \${POD_NAME} but neither POD_NAME nor HOSTNAME is set"
fi
if [[ "$content" == *'${POD_NAMESPACE}'* ]] && [ -z "${POD_NAMESPACE:-}" ]; then
  die "a value uses \${POD_NAMESPACE} but POD_NAMESPACE is not set (Kubernetes: the downward API's metadata.namespace)"
fi
content="${content//'${NODE_ID}'/$node_id}"
content="${content//'${POD_NAME}'/$pod_name}"
content="${content//'${POD_NAMESPACE}'/${POD_NAMESPACE:-}}"

properties="# Written by aloft-container.sh: $config_file, then ALOFT_PROP_* and node.id (a later line wins)
${content}
node.id=$node_id
"

if [ "$mode" = config ]; then
  printf '%s' "$properties"
  exit 0
fi

out="${ALOFT_GENERATED_CONFIG:-}"
if [ -z "$out" ]; then
  out="$(mktemp "${TMPDIR:-/tmp}/aloft-server.XXXXXX")" || die "TMPDIR: cannot create a file in ${TMPDIR:-/tmp}"
else
  mkdir -p "$(dirname "$out")" 2>/dev/null || true
fi
printf '%s' "$properties" >"$out" || die "ALOFT_GENERATED_CONFIG: cannot write $out"
echo "aloft-container.sh: node.id=$node_id; server.properties written to $out" >&2

# exec: the JVM replaces this shell (PID 1 in a container), so SIGTERM reaches the broker's shutdown hook.
# shellcheck disable=SC2086
exec "$java_bin" ${ALOFT_HEAP_OPTS:--Xms1g -Xmx3g} ${ALOFT_GC_OPTS:--XX:+UseZGC} ${ALOFT_JVM_OPTS:-} \
  -Dlog4j2.shutdownHookEnabled=false -Dlog4j2.configurationFile="$log4j" \
  -cp "$(classpath broker)" io.aloft.broker.BrokerMain "$out"
