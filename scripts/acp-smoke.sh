#!/usr/bin/env bash
# ACP smoke test of a release artefact (release.AcpSmoke from the test sources): initialize, session/new and one
# prompt against the scripted fake model. Usage: scripts/acp-smoke.sh PATH/TO/agent/bin/agent[.cmd] | PATH/TO/native-agent
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
. "$here/scripts/find-jdk.sh"
. "$here/scripts/maven.sh"
cd "$here"
agent_maven -q test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/smoke.cp >/dev/null
sep=':'; case "$(uname -s)" in MINGW*|MSYS*|CYGWIN*) sep=';' ;; esac
exec "$JAVA_CMD" -cp "target/test-classes${sep}target/classes${sep}$(cat target/smoke.cp)" cn.agentao.agent.release.AcpSmoke "$1"
