#!/usr/bin/env bash
# Streams a long answer (default 20,000 chunks, 5 rounds) from the fake model directly and through the agent.
# Usage: bench/streaming.sh [chunks] [rounds]   (after bin/build)
#        bench/streaming.sh memory [chunks]   live heap halfway through answers of chunks/10 and chunks
exec "$(dirname "$0")/run-java.sh" cn.agentao.agent.bench.StreamingBenchmark "$@"
