#!/usr/bin/env bash
# A subagent's own cost before its first model request on a warm process, against a plain tool call's.
# Usage: bench/subagents.sh [rounds]
exec "$(dirname "$0")/run-java.sh" cn.agentao.agent.core.SubagentBenchmark "$@"
