#!/usr/bin/env bash
# Writes native/reflect-config.json: every record Jackson (de)serialises reflectively (protocol, JSON-RPC
# envelopes, ACP front-door records), read from the compiled classes.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here/target/classes"
{
  echo "["
  first=1
  for f in $(find cn/agentao/agent/protocol cn/agentao/agent/jsonrpc cn/agentao/agent/acp -name '*.class' | sort); do
    cls=${f%.class}; cls=${cls//\//.}
    [ $first -eq 1 ] || echo ","
    first=0
    printf '  {"name": "%s", "allDeclaredConstructors": true, "allDeclaredMethods": true, "allDeclaredFields": true, "allRecordComponents": true}' "$cls"
  done
  echo; echo "]"
} > "$here/native/reflect-config.json"
