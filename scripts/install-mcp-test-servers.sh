#!/usr/bin/env bash
# Installs the reference MCP servers the MCP tests run for real (pinned in interop/mcp-servers/package-lock.json)
# into interop/mcp-servers/node_modules. Quick when already installed: reinstalls only when the lock file changed.
# Without node/npm it does nothing (the MCP tests then skip, saying why).
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
exec bash "$here/scripts/npm-pinned.sh" install-mcp-test-servers "$here/interop/mcp-servers" \
  node_modules/@modelcontextprotocol/server-everything/dist/index.js node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
