#!/usr/bin/env bash
# Builds an AOT cache (JDK 25+: classes loaded and linked ahead of time) by running the agent through a short ACP
# exchange on the Java it will run with; a cache made by another JVM is refused, so each runtime trains its own.
# Usage: scripts/train-aot.sh JAVA_HOME [JAR [CACHE [CHAT_CACHE]]]
#   (default: target/agent.jar, target/agent.aot, and CACHE with -chat before .aot: target/agent-chat.aot)
# The chat has a cache of its own, trained by running the chat on a pseudo-terminal (cli/ChatTraining.java): every
# class in a cache is loaded at every start, so JLine stays out of the editors' cache; the launchers pick the chat's
# cache only when the chat will run.
# The old caches are removed first: a cache is rebuilt whole on every build, never patched.
# Skipped quietly on a JDK without AOT caches (21-24); a failed training leaves no cache (the agent then runs
# without one) unless AOT_REQUIRED=1, when it fails the build (release archives).
set -euo pipefail
java_home="$1"
here="$(cd "$(dirname "$0")/.." && pwd)"
jar="${2:-$here/target/agent.jar}"
aot="${3:-$here/target/agent.aot}"
chat_aot="${4:-${aot%.aot}-chat.aot}"
java="$java_home/bin/java"
major=$("$java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version =/ {print $2; exit}' | cut -d. -f1)
rm -f "$aot" "$chat_aot"
if [ "${major:-0}" -lt 25 ]; then
  echo "train-aot: JDK $major has no one-step AOT cache; the agent runs without it" >&2
  if [ -n "${AOT_REQUIRED:-}" ]; then exit 1; fi
  exit 0
fi
# One ACP session against a canned local model (see cli/AotTraining.java): handshake, session/new, a prompt
# whose answer calls a tool and streams text, a slash command. The cache then holds what a first turn loads.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$java" "@$here/launcher/jvm.options" -XX:AOTCacheOutput="$aot" -jar "$jar" --aot-training > /dev/null 2> "$log" || {
    echo "train-aot: training run failed; the agent runs without an AOT cache" >&2; cat "$log" >&2; rm -f "$aot" "$chat_aot"
    if [ -n "${AOT_REQUIRED:-}" ]; then exit 1; fi
    exit 0; }
"$java" "@$here/launcher/jvm.options" -XX:AOTCacheOutput="$chat_aot" -jar "$jar" --aot-training-chat > /dev/null 2> "$log" || {
    echo "train-aot: chat training run failed; the chat runs without an AOT cache" >&2; cat "$log" >&2; rm -f "$chat_aot"
    if [ -n "${AOT_REQUIRED:-}" ]; then exit 1; fi
    exit 0; }
