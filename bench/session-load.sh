#!/usr/bin/env bash
# session/load (with replay) of a saved 10,000-message conversation through the agent.
# Usage: bench/session-load.sh [messages] [rounds]   (after bin/build)
exec "$(dirname "$0")/run-java.sh" cn.agentao.agent.bench.SessionLoadBenchmark "$@"
