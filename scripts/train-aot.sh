#!/usr/bin/env bash
# Builds target/agent.aot (JDK 25+ AOT cache: classes loaded and linked ahead of time) by running the
# built agent through a short ACP exchange. Skipped quietly on a JDK without AOT caches (21-24).
set -euo pipefail
java_home="$1"
here="$(cd "$(dirname "$0")/.." && pwd)"
java="$java_home/bin/java"
major=$("$java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version =/ {print $2; exit}' | cut -d. -f1)
aot="$here/target/agent.aot"
rm -f "$aot"
if [ "${major:-0}" -lt 25 ]; then
  echo "train-aot: JDK $major has no one-step AOT cache; bin/agent runs without it" >&2
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/in.jsonl" <<JSON
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true},"clientInfo":{"name":"aot-training","version":"1"}}}
{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"$tmp","mcpServers":[]}}
{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"relative","mcpServers":[]}}
{"jsonrpc":"2.0","id":4,"method":"nope","params":{}}
not json
{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"x"}}
JSON
XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config" AGENT_SESSIONS_DIR="$tmp/sessions" \
  "$java" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss512k -Xmx1g -Xlog:disable -Xlog:all=warning:stderr \
  -XX:AOTCacheOutput="$aot" -jar "$here/target/agent.jar" --acp < "$tmp/in.jsonl" > "$tmp/out.jsonl" 2> "$tmp/err.log" || {
    echo "train-aot: training run failed; bin/agent runs without an AOT cache" >&2; cat "$tmp/err.log" >&2; rm -f "$aot"; exit 0; }
