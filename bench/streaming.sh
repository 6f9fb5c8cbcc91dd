#!/usr/bin/env bash
# Streams a long answer (default 20,000 chunks, 5 rounds) from the fake model directly and through the agent.
# Usage: bench/streaming.sh [anthropic] [chunks] [rounds]   (after bin/build; 'anthropic': Anthropic's Messages wire)
#        bench/streaming.sh [anthropic] memory [chunks]   live heap halfway through answers of chunks/10 and chunks
#        REFERENCE=/path/to/other/checkout bench/streaming.sh ...   also measures that (built) agent, interleaved
exec env BENCH_JAVA_OPTS="${BENCH_JAVA_OPTS:-}${REFERENCE:+ -Dbench.reference=$REFERENCE}" \
    "$(dirname "$0")/run-java.sh" cn.agentao.agent.bench.StreamingBenchmark "$@"
