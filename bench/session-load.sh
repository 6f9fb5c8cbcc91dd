#!/usr/bin/env bash
# session/load (with replay) of a saved 10,000-message conversation through the agent.
# Usage: bench/session-load.sh [messages] [rounds] [reference bin/agent]   (after bin/build)
# With a reference (another build, e.g. main built in another clone) the two take turns and the ratio is printed.
exec "$(dirname "$0")/run-java.sh" cn.agentao.agent.bench.SessionLoadBenchmark "$@"
