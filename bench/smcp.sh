#!/usr/bin/env bash
# A tool call through the A2C-SMCP test office (Socket.IO server + a Computer hosting server-everything) against the
# same tool over MCP stdio directly, in the same run. Usage: bench/smcp.sh [rounds]   (needs node)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bash "$here/scripts/install-smcp-test-office.sh"
bash "$here/scripts/install-mcp-test-servers.sh"
exec "$here/bench/run-java.sh" cn.agentao.agent.bench.SmcpRoundTripBenchmark "${1:-300}"
