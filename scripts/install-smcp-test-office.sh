#!/usr/bin/env bash
# Installs the pinned Socket.IO packages of the test A2C-SMCP office (interop/smcp/package-lock.json) into
# interop/smcp/node_modules. Quick when already installed: reinstalls only when the lock file changed.
# Without node/npm it does nothing (the SMCP tests then skip, saying why).
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
dir="$here/interop/smcp"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "install-smcp-test-office: node/npm not found; the SMCP tests will be skipped" >&2
  exit 0
fi
stamp="$dir/node_modules/.agent-lock-sha256"
want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -d "$dir/node_modules/socket.io" ] && [ -d "$dir/node_modules/socket.io-client" ]; then
  exit 0
fi
echo "install-smcp-test-office: installing the pinned Socket.IO packages into interop/smcp" >&2
(cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >&2)
echo "$want" > "$stamp"
