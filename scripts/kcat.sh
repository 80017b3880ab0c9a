#!/usr/bin/env bash
# Installs (once) kcat for the compatibility tests: Debian's package (on Debian 12: kcat 1.7.1 on
# librdkafka 2.0.2, the generation that found the ListOffsets bug of issue 11). Prints kcat's path
# on the last stdout line; a kcat already on the PATH is used as it is, without touching the network.
# Needs root and apt-get the first time (CI runs as root on Debian). Everything else goes to stderr.
set -euo pipefail

if path="$(command -v kcat)"; then
  echo "$path"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || [[ "$(id -u)" != 0 ]]; then
  echo "kcat.sh: kcat is not installed and this is not root on a machine with apt-get; install kcat" >&2
  echo "(Debian/Ubuntu: apt-get install kcat); the compatibility tests' kcat case fails without it" >&2
  exit 1
fi
echo "kcat.sh: installing Debian's kcat package" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists yet: update once, only if the install cannot find the package.
if ! apt-get install -y -q --no-install-recommends kcat >&2; then
  apt-get update -q >&2
  apt-get install -y -q --no-install-recommends kcat >&2
fi
command -v kcat
