#!/usr/bin/env bash
# Installs (once) the Python Kafka clients of the compatibility tests: confluent-kafka, whose wheels
# bundle librdkafka, at each pinned version below, each in a virtual environment of its own under
# $HOME/.cache/aloft/python-clients/confluent-kafka-<version>. Prints the cache directory on the
# last stdout line.
#
# A venv whose .installed marker exists is reused without touching the network; the marker is
# written last, so an interrupted install is redone. Packages come from PyPI the first time.
# Everything else goes to stderr.
set -euo pipefail

# 2.16.1: current. 2.0.2: bundles librdkafka 2.0.2, the generation of Debian 12's kcat and librdkafka1.
# compat/src/test/java/io/aloft/compat/ClientCompatibilityTests.java names the same versions.
versions=(2.16.1 2.0.2)

cache="${ALOFT_CACHE_DIR:-$HOME/.cache/aloft}"
root="$cache/python-clients"
python="${PYTHON:-python3}"

for version in "${versions[@]}"; do
  venv="$root/confluent-kafka-$version"
  if [[ -f "$venv/.installed" && -x "$venv/bin/python" ]]; then
    continue
  fi
  if ! command -v "$python" >/dev/null 2>&1; then
    echo "python-clients.sh: '$python' is not on PATH; install Python 3 with venv and pip (or set PYTHON)" >&2
    exit 1
  fi
  echo "python-clients.sh: installing confluent-kafka $version into $venv" >&2
  rm -rf "$venv"
  mkdir -p "$root"
  if ! "$python" -m venv "$venv" >&2; then
    echo "python-clients.sh: '$python -m venv' failed (on Debian: apt-get install python3-venv)" >&2
    exit 1
  fi
  # Wheels only: a source build would need librdkafka's headers and a C compiler.
  if ! "$venv/bin/python" -m pip install --no-input --disable-pip-version-check --only-binary=:all: \
      "confluent-kafka==$version" >&2; then
    echo "python-clients.sh: installing confluent-kafka==$version from PyPI failed (see above)" >&2
    exit 1
  fi
  "$venv/bin/python" -c 'import confluent_kafka' >&2
  touch "$venv/.installed"
done
echo "$root"
