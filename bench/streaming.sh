#!/usr/bin/env bash
# Streams a long answer (default 20,000 chunks, 5 rounds) from the fake model directly and through the agent.
# Usage: bench/streaming.sh [chunks] [rounds]   (after bin/build)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
. "$here/scripts/find-jdk.sh"
cd "$here"
mvn -B -q ${MVN_ARGS:-} test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.cp >/dev/null
exec "$JAVA_CMD" -Dagent.home="$here" -cp "target/test-classes:target/classes:$(cat target/bench.cp)" \
  cn.agentao.agent.bench.StreamingBenchmark "$@"
