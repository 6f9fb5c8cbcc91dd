#!/usr/bin/env bash
# grep and glob tools against ripgrep (rg, rg --files) on a large tree: by default the JDK's own sources,
# unpacked once from $JAVA_HOME/lib/src.zip into target/bench-src. Runs with the agent's JVM options (launcher/jvm.options).
# Each round, interleaved: the tool with rg's help (-Dagent.search=rg, as AGENT_SEARCH=rg does), the tool as it is
# by default (the Java path alone), rg itself. Prints each one's median and ratio to rg.
# Usage: bench/search.sh [rounds] [tree]   (needs /usr/bin/rg: apt-get install -y ripgrep)
#        BENCH_JAVA_OPTS=-Dbench.only=glob bench/search.sh ...   glob alone
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
. "$here/scripts/find-jdk.sh"
. "$here/scripts/maven.sh"
cd "$here"
tree="${2:-}"
if [ -z "$tree" ]; then
  tree="$here/target/bench-src"
  if [ ! -d "$tree" ]; then
    zip="$(dirname "$(dirname "$(readlink -f "$JAVA_CMD")")")/lib/src.zip"
    mkdir -p "$tree.tmp" && (cd "$tree.tmp" && unzip -q "$zip") && mv "$tree.tmp" "$tree"
  fi
fi
agent_maven -q ${MVN_ARGS:-} test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.cp >/dev/null
exec "$JAVA_CMD" "@$here/launcher/jvm.options" ${BENCH_JAVA_OPTS:-} \
  -cp "target/test-classes:target/classes:$(cat target/bench.cp)" cn.agentao.agent.bench.SearchBenchmark \
  "${1:-7}" "$tree"
