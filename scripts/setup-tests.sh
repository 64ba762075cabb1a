#!/usr/bin/env bash
# Installs what the test suite needs: the Python packages, and Debian's Chromium for the browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
"${PYTHON:-python3}" -m pip install --quiet --disable-pip-version-check -r requirements-test.txt
"${PYTHON:-python3}" -m pip install --quiet --disable-pip-version-check --no-deps tf-keras==2.21.0
if [ "${GRADLIB_NO_CHROMIUM:-}" = 1 ]; then exit 0; fi   # make test-fast: no browser tests, no Chromium
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  if command -v apt-get >/dev/null && { [ -z "$SUDO" ] || command -v sudo >/dev/null; }; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
  else
    echo "setup-tests: no apt-get here, so Debian's Chromium is not installed: the browser tests will be" \
         "skipped (in CI, where CI=true, they fail instead); everything else runs" >&2
  fi
fi
