#!/usr/bin/env bash
# PostgreSQL store vs file store in one run: durable appends per second, and session/load with replay of a
# 10,000-message conversation through the agent (a throwaway local PostgreSQL is started; needs
# scripts/install-postgres.sh). Usage: bench/store-postgres.sh [messages] [rounds]   (after bin/build)
exec "$(dirname "$0")/run-java.sh" cn.agentao.agent.bench.PostgresStoreBenchmark "$@"
