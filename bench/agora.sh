#!/usr/bin/env bash
# Mentions in 20 Agora spaces at once answered by `agent agora` (scripted model, test Agora server) versus the same
# prompts sent at once to 20 ACP sessions, in the same run. Usage: bench/agora.sh [spaces] [rounds]   (after bin/build)
exec "$(dirname "$0")/run-java.sh" cn.agentao.agent.bench.AgoraBenchmark "$@"
