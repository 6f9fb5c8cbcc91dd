#!/usr/bin/env bash
# 200 concurrent streaming A2A tasks over two `agent a2a serve` instances on one PostgreSQL database, against the
# same on one instance with the file store, interleaved in one run (a throwaway local PostgreSQL is started; needs
# scripts/install-postgres.sh). Prints time, per-task latency median/p90, RSS of each instance, peak DB connections
# and the ratios. Usage: bench/a2a-scale.sh [tasks=200] [rounds=2]   (after bin/build)
exec "$(dirname "$0")/run-java.sh" cn.agentao.agent.bench.A2aScaleBenchmark "$@"
