#!/usr/bin/env bash
# Installs the pinned Node packages of a test directory (its package-lock.json) into its node_modules with `npm ci`.
# Quick when already installed: reinstalls only when the lock file changed or a required path is missing.
# Without node/npm it does nothing (the tests that need the packages then skip, saying why).
# Usage: scripts/npm-pinned.sh LABEL DIR [REQUIRED_PATH_UNDER_DIR...]
set -euo pipefail
label="$1" dir="$2"; shift 2
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "$label: node/npm not found; the tests that need them will be skipped" >&2
  exit 0
fi
stamp="$dir/node_modules/.agent-lock-sha256"
want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
present=1
for p in "$@"; do [ -e "$dir/$p" ] || present=0; done
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ "$present" = 1 ]; then
  exit 0
fi
echo "$label: installing the pinned packages into $dir" >&2
(cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >&2)
echo "$want" > "$stamp"
