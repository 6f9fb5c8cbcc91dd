#!/usr/bin/env bash
# The cost of trusting the extra CAs (system bundle, SSL_CERT_FILE/DIR) when the first TLS client is built, against the
# JDK's default TLS context, each in fresh JVMs. Usage: bench/tls-setup.sh [rounds]   (after bin/build)
exec "$(dirname "$0")/run-java.sh" cn.agentao.agent.bench.TlsSetupBenchmark "$@"
