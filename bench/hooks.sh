#!/usr/bin/env bash
# What a no-op PreToolUse hook adds to a tool call: the hook process itself, and ours on top of it.
# Usage: bench/hooks.sh [rounds]
exec "$(dirname "$0")/run-java.sh" cn.agentao.agent.bench.HookBenchmark "$@"
