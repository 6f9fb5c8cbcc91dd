#!/usr/bin/env bash
# The OS sandbox's added time per shell command: `true` with and without it, per mode.
# Usage: bench/sandbox.sh [rounds]   (after bin/build)
exec "$(dirname "$0")/run-java.sh" cn.agentao.agent.bench.SandboxBenchmark "$@"
