#!/usr/bin/env bash
# Installs the reference MCP servers the MCP tests run for real (pinned in interop/mcp-servers/package-lock.json)
# into interop/mcp-servers/node_modules. Quick when already installed: reinstalls only when the lock file changed.
# Without node/npm it does nothing (the MCP tests then skip, saying why).
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
dir="$here/interop/mcp-servers"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "install-mcp-test-servers: node/npm not found; the MCP server tests will be skipped" >&2
  exit 0
fi
stamp="$dir/node_modules/.agent-lock-sha256"
want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
   && [ -f "$dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js" ] \
   && [ -f "$dir/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js" ]; then
  exit 0
fi
echo "install-mcp-test-servers: installing the pinned MCP test servers into interop/mcp-servers" >&2
(cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >&2)
echo "$want" > "$stamp"
