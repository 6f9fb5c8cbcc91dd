#!/usr/bin/env bash
# What checkpoints (/undo) cost a turn that changes 1 and 100 files, against the same writes without them; disk per checkpoint.
# Usage: bench/checkpoints.sh [rounds]
exec "$(dirname "$0")/run-java.sh" cn.agentao.agent.core.CheckpointBenchmark "$@"
