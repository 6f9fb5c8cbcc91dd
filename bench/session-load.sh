#!/usr/bin/env bash
# session/load (with replay) of a saved 10,000-message conversation through the agent.
# Usage: bench/session-load.sh [messages] [rounds]   (after bin/build)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
. "$here/scripts/find-jdk.sh"
cd "$here"
mvn -B -q ${MVN_ARGS:-} test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.cp >/dev/null
exec "$JAVA_CMD" -Dagent.home="$here" -cp "target/test-classes:target/classes:$(cat target/bench.cp)" \
  cn.agentao.agent.bench.SessionLoadBenchmark "$@"
