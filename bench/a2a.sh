#!/usr/bin/env bash
# agent a2a serve with the scripted model: time to the first stream event on a warm server (against the fake
# model's own first chunk), N concurrent streaming tasks (RSS), the RSS cost of idle contexts.
# Usage: bench/a2a.sh [concurrent=50] [contexts=200]   (after bin/build)
exec "$(dirname "$0")/run-java.sh" cn.agentao.agent.bench.A2aBenchmark "$@"
