#!/usr/bin/env bash
# Runs a benchmark main class (bench/java, compiled with the tests into target/test-classes) or a test fixture
# (e.g. cn.agentao.agent.testing.FakeModelServer) against the built agent (run bin/build first).
# Usage: bench/run-java.sh <class> [args...]   (MVN_ARGS=-o to build offline)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
. "$here/scripts/find-jdk.sh"
. "$here/scripts/maven.sh"
cd "$here"
agent_maven -q ${MVN_ARGS:-} test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.cp >/dev/null
class="$1"; shift
exec "$JAVA_CMD" ${BENCH_JAVA_OPTS:-} -Dagent.home="$here" -cp "target/test-classes:target/classes:$(cat target/bench.cp)" "$class" "$@"
