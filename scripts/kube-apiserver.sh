#!/usr/bin/env bash
# A real Kubernetes API server (kube-apiserver backed by etcd) on 127.0.0.1, for tests of what talks
# to Kubernetes (the autoscaler's StatefulSet backend, a Helm chart): no kubelet, scheduler or
# controller-manager, so objects are stored, validated, defaulted and authorized as on a real
# cluster, but nothing acts on them (a StatefulSet scaled to 3 gets no pods and its status stays
# what a client writes into /status).
#
#   scripts/kube-apiserver.sh build
#       builds (once per version) kube-apiserver and etcd from the Go module proxy and prints the
#       kube-apiserver path then the etcd path (the last two stdout lines). Cached as
#       $HOME/.cache/aloft/bin/kube-apiserver-<k8s version> and etcd-<etcd version>; present binaries
#       are reused without touching the network. Cold build (measured): ~10 CPU-minutes (9.7: 32 min
#       wall at nice 19 on 2 busy shared cores), peak 2.7 GiB RSS (the link); a relink alone ~15 s.
#   scripts/kube-apiserver.sh start --dir DIR
#       builds if needed, then starts etcd and kube-apiserver on free ports with state in DIR (deleted
#       and made anew), waits for /readyz and prints the kubeconfig path (last stdout line). DIR also
#       holds: kube.env (server=https://127.0.0.1:PORT, token=..., ca=DIR/ca.crt, pids), token, ca.crt,
#       etcd.log, apiserver.log. The kubeconfig's user has an admin bearer token (group
#       system:masters); authorization is RBAC, so other identities are checked as on a cluster.
#   scripts/kube-apiserver.sh stop --dir DIR
#       SIGTERM to kube-apiserver then etcd (by the pids recorded in DIR), SIGKILL after 20 s; DIR is kept.
#   scripts/kube-apiserver.sh run --dir DIR
#       start, then stay in the foreground until SIGTERM/SIGINT (or either server exits), then stop:
#       for a caller that wants one process to own (Java's Process.destroy() stops both servers).
# ALOFT_KUBE_START_TIMEOUT (seconds, default 180) bounds the wait for /readyz.
# Exit status: 0 done, 1 failed (the log to read is named), 2 bad arguments.
#
# Build conventions (as scripts/go-clients.sh and promtool.sh): Go's caches under $HOME/.cache/aloft
# (scripts/lib/go-env.sh), builds at nice 19 with 2 compile jobs so the machine stays usable.
# k8s.io/kubernetes is not meant to be a dependency: its go.mod points its staging modules (k8s.io/api,
# apimachinery, apiserver, client-go, ...) at ./staging with `replace` and requires them as v0.0.0.
# The build module written here replaces each of them with the published v0.<minor>.<patch> of the same
# release instead (the list is generated from k8s.io/kubernetes's go.mod). etcd is built from
# go.etcd.io/etcd/server/v3's etcdmain at the version k8s.io/kubernetes itself pins, in the same module.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
k8s_version="v1.37.2"  # k8s.io/kubernetes; staging modules are v0.37.2
etcd_version="v3.7.0"  # go.etcd.io/etcd/server/v3: what k8s.io/kubernetes v1.37.2 requires
cache="${ALOFT_CACHE_DIR:-$HOME/.cache/aloft}"
bin_dir="$cache/bin"
apiserver_bin="$bin_dir/kube-apiserver-$k8s_version"
etcd_bin="$bin_dir/etcd-$etcd_version"

usage() { sed -n '2,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "kube-apiserver.sh: $*" >&2; exit 1; }

build() {
  if [[ -x "$apiserver_bin" && -x "$etcd_bin" ]]; then return 0; fi
  mkdir -p "$bin_dir"
  source "$root/scripts/lib/go-env.sh"
  go_env kube-apiserver.sh "$cache" "install Go >= 1.26 to build kube-apiserver and etcd for the Kubernetes tests"
  # -mod=mod: the build module has no go.sum of its own; go fills it in (checked against the
  # checksum database) as it resolves k8s.io/kubernetes's dependencies.
  export GOFLAGS="$GOFLAGS -mod=mod"
  export GOMAXPROCS="${GOMAXPROCS:-2}"
  local src="$cache/kube-build-$k8s_version" tmp start minor
  mkdir -p "$src/etcd"
  minor="v0.${k8s_version#v1.}"
  # The staging modules' names come from k8s.io/kubernetes's own go.mod (its `k8s.io/x v0.0.0` lines).
  (cd "$src" && printf 'module aloft.local/kube-build\n\ngo 1.26.0\n' >go.mod \
    && go mod edit -require="k8s.io/kubernetes@$k8s_version" -require="go.etcd.io/etcd/server/v3@$etcd_version" \
    && go mod download -json "k8s.io/kubernetes@$k8s_version" >"$src/k8s.json") >&2 \
    || die "could not fetch k8s.io/kubernetes $k8s_version from the Go module proxy (see above)"
  local k8s_mod m edits=()
  k8s_mod="$(sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p' "$src/k8s.json")"
  [[ -f "$k8s_mod" ]] || die "no go.mod of k8s.io/kubernetes $k8s_version in the module cache (see $src/k8s.json)"
  for m in $(awk '/^\t+k8s\.io\/[a-z0-9-]+ v0\.0\.0$/ {print $1}' "$k8s_mod"); do
    edits+=("-replace=$m=$m@$minor")
  done
  [[ ${#edits[@]} -gt 10 ]] || die "found only ${#edits[@]} staging modules in $k8s_mod; its format changed?"
  (cd "$src" && go mod edit "${edits[@]}")
  cat >"$src/etcd/main.go" <<'EOF'
// etcd's own main (go.etcd.io/etcd/v3's main.go does the same), built here beside kube-apiserver.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
  # Build to a temp dir and rename, so a killed build never leaves a binary the next run would trust.
  tmp="$(mktemp -d "$bin_dir/.kube-build-XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  echo "kube-apiserver.sh: building kube-apiserver $k8s_version and etcd $etcd_version with $(go version)" \
    "(nice 19, 2 jobs; a cold build takes tens of minutes)" >&2
  start=$(date +%s)
  # The version stamps Kubernetes' own build sets (hack/lib/version.sh): without them /version says
  # gitVersion v0.0.0-master, which clients that check the server's version (Helm's kubeVersion) reject.
  local major="${k8s_version#v}" minor_n ldflags="-s" pkg
  minor_n="${major#*.}"; minor_n="${minor_n%%.*}"; major="${major%%.*}"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor_n"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  done
  if ! (cd "$src" && nice -n 19 go build -p 2 -trimpath -ldflags="$ldflags" -o "$tmp/" \
      k8s.io/kubernetes/cmd/kube-apiserver ./etcd) >&2; then
    die "'go build' of kube-apiserver/etcd in $src failed (see above)"
  fi
  mv -f "$tmp/etcd" "$etcd_bin"
  mv -f "$tmp/kube-apiserver" "$apiserver_bin"
  rm -rf "$tmp"
  trap - EXIT
  echo "kube-apiserver.sh: built $apiserver_bin and $etcd_bin in $(( $(date +%s) - start ))s" >&2
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

alive() { [[ -f "$dir/$1.pid" ]] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null; }

# SIGTERM to the process recorded in DIR/$1.pid, SIGKILL if it has not exited after 20 s.
stop_one() {
  local name="$1" pid deadline
  alive "$name" || { rm -f "$dir/$name.pid"; return 0; }
  pid="$(cat "$dir/$name.pid")"
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + 20))
  while kill -0 "$pid" 2>/dev/null; do
    if [[ $SECONDS -ge $deadline ]]; then kill -KILL "$pid" 2>/dev/null || true; fi
    sleep 0.2
  done
  rm -f "$dir/$name.pid"
}

stop_all() { stop_one apiserver; stop_one etcd; }

# Certificates: a CA (in the kubeconfig, so clients verify the server as on a real cluster), the
# server's certificate for 127.0.0.1/localhost, and the key pair that signs service-account tokens.
make_certs() {
  local ssl="openssl"
  (cd "$dir"
    $ssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=aloft-test-ca" \
      -keyout ca.key -out ca.crt
    $ssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" -keyout server.key -out server.csr
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n' >server.ext
    $ssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
      -extfile server.ext -out server.crt
    $ssl genrsa -out sa.key 2048
    $ssl rsa -in sa.key -pubout -out sa.pub) >"$dir/openssl.log" 2>&1 \
    || die "openssl failed; see $dir/openssl.log"
}

start() {
  build
  # DIR is deleted and made anew, so only a DIR this script made (or an empty/new one) is accepted.
  if [[ -d "$dir" && -n "$(ls -A "$dir")" && ! -f "$dir/.aloft-kube-apiserver" ]]; then
    die "$dir is not empty and was not made by this script; give a new or empty --dir"
  fi
  if alive apiserver || alive etcd; then die "servers still running in $dir; stop them first"; fi
  rm -rf "$dir"
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  touch "$dir/.aloft-kube-apiserver"
  make_certs
  local etcd_port peer_port api_port token deadline code timeout="${ALOFT_KUBE_START_TIMEOUT:-180}"
  etcd_port="$(free_port)"; peer_port="$(free_port)"; api_port="$(free_port)"
  token="$(openssl rand -hex 24)"
  echo "$token" >"$dir/token"
  # token,user,uid,"groups": system:masters is allowed everything whatever the authorizer says.
  echo "$token,aloft-admin,aloft-admin,\"system:masters\"" >"$dir/tokens.csv"
  chmod 600 "$dir/token" "$dir/tokens.csv" "$dir"/*.key

  # --unsafe-no-fsync: test data, thrown away; fsync on a busy shared disk only slows every write.
  # setsid: not in the caller's process group, so a Ctrl-C there does not stop it half-way.
  setsid "$etcd_bin" --name default --data-dir "$dir/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "default=http://127.0.0.1:$peer_port" --unsafe-no-fsync --log-level warn \
    </dev/null >"$dir/etcd.log" 2>&1 &
  echo $! >"$dir/etcd.pid"
  deadline=$((SECONDS + timeout))
  until curl -sf "http://127.0.0.1:$etcd_port/health" >/dev/null 2>&1; do
    alive etcd || { stop_all; die "etcd exited while starting; see $dir/etcd.log"; }
    [[ $SECONDS -lt $deadline ]] || { stop_all; die "etcd not healthy after ${timeout}s; see $dir/etcd.log"; }
    sleep 0.2
  done

  # No --cloud-provider, no kubelet: only the API. The service-account issuer and keys are required
  # flags; the service IP range is for Services' cluster IPs, never routed here. The endpoint
  # reconciler (which publishes the advertise address as the `kubernetes` Service's endpoint) refuses
  # a loopback address, and nothing here routes to that Service, so it is off.
  setsid "$apiserver_bin" \
    --etcd-servers "http://127.0.0.1:$etcd_port" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
    --tls-cert-file "$dir/server.crt" --tls-private-key-file "$dir/server.key" \
    --client-ca-file "$dir/ca.crt" \
    --token-auth-file "$dir/tokens.csv" \
    --authorization-mode RBAC \
    --service-account-issuer "https://kubernetes.default.svc.cluster.local" \
    --service-account-key-file "$dir/sa.pub" --service-account-signing-key-file "$dir/sa.key" \
    --service-cluster-ip-range 10.96.0.0/16 --endpoint-reconciler-type none \
    --profiling=false --v 1 \
    </dev/null >"$dir/apiserver.log" 2>&1 &
  echo $! >"$dir/apiserver.pid"
  local server="https://127.0.0.1:$api_port"
  until code="$(curl -s -o /dev/null -w '%{http_code}' --cacert "$dir/ca.crt" \
      -H "Authorization: Bearer $token" "$server/readyz")" && [[ "$code" = 200 ]]; do
    alive apiserver || { stop_all; die "kube-apiserver exited while starting; see $dir/apiserver.log"; }
    [[ $SECONDS -lt $deadline ]] || { stop_all; die "kube-apiserver not ready after ${timeout}s; see $dir/apiserver.log"; }
    sleep 0.5
  done

  cat >"$dir/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: aloft-test
  cluster:
    server: $server
    certificate-authority-data: $(base64 -w0 <"$dir/ca.crt")
users:
- name: aloft-admin
  user:
    token: $token
contexts:
- name: aloft-test
  context:
    cluster: aloft-test
    user: aloft-admin
    namespace: default
current-context: aloft-test
EOF
  printf 'server=%s\ntoken=%s\nca=%s\nkubeconfig=%s\napiserver_pid=%s\netcd_pid=%s\netcd=http://127.0.0.1:%s\n' \
    "$server" "$token" "$dir/ca.crt" "$dir/kubeconfig" "$(cat "$dir/apiserver.pid")" \
    "$(cat "$dir/etcd.pid")" "$etcd_port" >"$dir/kube.env"
  echo "kube-apiserver.sh: serving at $server (state in $dir)" >&2
  echo "$dir/kubeconfig"
}

[[ $# -ge 1 ]] || usage
cmd="$1"; shift
dir=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dir) [[ $# -ge 2 ]] || usage; dir="$2"; shift 2 ;;
    *) echo "kube-apiserver.sh: unexpected argument $1" >&2; usage ;;
  esac
done

case "$cmd" in
  build)
    build
    echo "$apiserver_bin"
    echo "$etcd_bin"
    ;;
  start)
    [[ -n "$dir" ]] || usage
    start
    ;;
  stop)
    [[ -n "$dir" ]] || usage
    [[ -d "$dir" ]] || exit 0
    stop_all
    ;;
  run)
    [[ -n "$dir" ]] || usage
    trap 'stop_all; exit 0' TERM INT HUP
    start
    while alive apiserver && alive etcd; do sleep 1 & wait $!; done
    stop_all
    die "a server exited on its own; see $dir/apiserver.log and $dir/etcd.log"
    ;;
  *) usage ;;
esac
