#!/usr/bin/env bash
# Installs the pinned Socket.IO packages of the test A2C-SMCP office (interop/smcp/package-lock.json) into
# interop/smcp/node_modules. Without node/npm it does nothing (the SMCP tests then skip, saying why).
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
exec bash "$here/scripts/npm-pinned.sh" install-smcp-test-office "$here/interop/smcp" node_modules/socket.io node_modules/socket.io-client
