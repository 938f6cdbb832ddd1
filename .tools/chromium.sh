#!/usr/bin/env bash
# Installs Debian's Chromium (/usr/bin/chromium) if it is missing. Idempotent; prints
# nothing when Chromium is already there or the install succeeds.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

[ -x /usr/bin/chromium ] && exit 0

SUDO=
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
log="${TMPDIR:-/tmp}/sessiontree-chromium-install.log"
export DEBIAN_FRONTEND=noninteractive
if ! { $SUDO apt-get update -qq \
       && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >"$log" 2>&1; then
  echo "chromium.sh: installing Debian's chromium failed; log: $log" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
[ -x /usr/bin/chromium ] || { echo "chromium.sh: /usr/bin/chromium still missing after install (log: $log)" >&2; exit 1; }
