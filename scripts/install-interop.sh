#!/usr/bin/env bash
# Installs the pinned Node clients of the interop tests (interop/package-lock.json) into interop/node_modules
# with `npm ci`. Idempotent: a stamp of the lock file and the Node version makes a second run a no-op.
# Needs node (20+) and npm on PATH and the npm registry; nothing else.
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
dir="$here/interop"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "install-interop: node and npm are needed for the interop tests (Node 20+); install them, e.g. apt-get install nodejs npm" >&2
  exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "install-interop: Node $(node --version) is too old; the interop tests need Node 20 or newer" >&2
  exit 1
fi
stamp="$dir/node_modules/.interop-stamp"
want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1) node-$(node --version)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
echo "install-interop: npm ci in $dir" >&2
# --ignore-scripts: no package needs its install script for what the tests use (esbuild's only checks its binary);
# engine warnings (acpx declares Node 22) are expected: the tests run it on Node 20.
(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
echo "$want" > "$stamp"
