#!/usr/bin/env bash
# Streams a long answer (default 20,000 chunks, 5 rounds) from the fake model directly and through the agent.
# Usage: bench/streaming.sh [chunks] [rounds]   (after bin/build)
exec "$(dirname "$0")/run-java.sh" cn.agentao.agent.bench.StreamingBenchmark "$@"
