#!/usr/bin/env bash
# Benchmarks the session store (read of a 10,000-record session, append cost with and without fsync, listing).
# Usage: scripts/bench-store.sh [store-dir]   (default target/bench-store; use a directory on the disk you care
# about: tmpfs makes fsync free). Extra Maven flags via MVN_ARGS, e.g. MVN_ARGS=-o for offline.
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
. "$here/scripts/find-jdk.sh"
. "$here/scripts/maven.sh"
cd "$here"
agent_maven -q ${MVN_ARGS:-} test-compile
agent_maven -q ${MVN_ARGS:-} dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench-store-cp.txt >/dev/null
exec "$JAVA_CMD" -cp "target/test-classes:target/classes:$(cat target/bench-store-cp.txt)" \
  cn.agentao.agent.store.StoreBenchmark "$@"
