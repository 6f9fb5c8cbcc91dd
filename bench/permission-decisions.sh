#!/usr/bin/env bash
# What judging a shell command costs, against spawning `bash -c true` in the same run.
# Usage: bench/permission-decisions.sh [files] [rounds]
exec "$(dirname "$0")/run-java.sh" cn.agentao.agent.bench.PermissionDecisionBenchmark "$@"
