#!/usr/bin/env bash
# Short ACP turns (session/prompt round trip): this agent on the file store and on PostgreSQL (lease per turn),
# and, given one, a reference agent (e.g. main's bin/agent in a clone) on the file store, interleaved.
# Usage: bench/turns.sh [REFERENCE_BIN_AGENT|-] [turns] [rounds]   (after bin/build; needs scripts/install-postgres.sh)
exec "$(dirname "$0")/run-java.sh" cn.agentao.agent.bench.TurnLeaseBenchmark "$@"
