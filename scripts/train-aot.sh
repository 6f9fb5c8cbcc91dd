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
# One ACP session against a canned local model (see cli/AotTraining.java): handshake, session/new, a prompt
# whose answer calls a tool and streams text, a slash command. The cache then holds what a first turn loads.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$java" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss512k -Xmx1g -Xlog:disable -Xlog:all=warning:stderr \
  -XX:AOTCacheOutput="$aot" -jar "$here/target/agent.jar" --aot-training > /dev/null 2> "$log" || {
    echo "train-aot: training run failed; bin/agent runs without an AOT cache" >&2; cat "$log" >&2; rm -f "$aot"; exit 0; }
