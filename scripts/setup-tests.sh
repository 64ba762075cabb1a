#!/usr/bin/env bash
# Installs what the test suite needs: the Python packages, and Debian's Chromium for the browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
"${PYTHON:-python3}" -m pip install --quiet --disable-pip-version-check -r requirements-test.txt
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
