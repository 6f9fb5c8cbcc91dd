#!/usr/bin/env bash
# Writes the ACP agent registry manifest (agent.json) of a release: its `binary` distribution names the
# standalone archive of each platform and the command inside it (agent/bin/agent, agent\bin\agent.cmd).
# Usage: scripts/acp-registry-manifest.sh VERSION [DOWNLOAD_BASE_URL] > agent.json
#   default base: https://github.com/agentao/agent/releases/download/v$VERSION (the release jreleaser.yml makes)
# Listing in the registry also needs an auth method it accepts (`agent` or `terminal`): `auth` names the terminal
# method `initialize` advertises (AcpAgent.AUTH_LOGIN_ID, the client runs `agent login`); RegistryManifestTest keeps
# the two the same.
set -euo pipefail
version="$1"
base="${2:-https://github.com/agentao/agent/releases/download/v$version}"
entry() {  # registry platform key, archive file name, command
  printf '      "%s": { "archive": "%s/%s", "cmd": "%s", "args": ["--acp"] }' "$1" "$base" "$2" "$3"
}
cat <<JSON
{
  "id": "agent",
  "name": "agent",
  "version": "$version",
  "description": "A coding agent that speaks the Agent Client Protocol (ACP) over stdio",
  "repository": "https://github.com/agentao/agent",
  "authors": ["agentao.cn"],
  "license": "MIT",
  "auth": [
    { "type": "terminal", "id": "agent-login", "name": "Log in to a model provider", "args": ["login"] }
  ],
  "distribution": {
    "binary": {
$(entry linux-x86_64 "agent-$version-linux-x86_64.zip" ./agent/bin/agent),
$(entry linux-aarch64 "agent-$version-linux-aarch_64.zip" ./agent/bin/agent),
$(entry darwin-aarch64 "agent-$version-osx-aarch_64.zip" ./agent/bin/agent),
$(entry windows-x86_64 "agent-$version-windows-x86_64.zip" ./agent/bin/agent.cmd)
    }
  }
}
JSON
