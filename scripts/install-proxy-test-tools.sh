#!/usr/bin/env bash
# Installs tinyproxy and squid, the real HTTP proxies the proxy tests start themselves (on a free port, in the
# foreground, with their own configuration), when they are missing: Debian/Ubuntu packages through apt-get (as root,
# or with sudo when it needs no password). If they cannot be installed the proxy tests skip, saying why; installing
# never leaves a proxy service running.
set -euo pipefail
if { command -v tinyproxy || [ -x /usr/bin/tinyproxy ]; } >/dev/null 2>&1 && { command -v squid || [ -x /usr/sbin/squid ]; } >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-proxy-test-tools: no apt-get here; install tinyproxy and squid yourself or the proxy tests will be skipped" >&2
  exit 0
fi
sudo=()
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo=(sudo -n); else
    echo "install-proxy-test-tools: not root and no password-less sudo; the proxy tests will be skipped" >&2
    exit 0
  fi
fi
echo "install-proxy-test-tools: installing tinyproxy and squid (apt-get)" >&2
# The packages would start system-wide proxy services; the tests run their own, so keep the service from starting.
policy=/usr/sbin/policy-rc.d
made_policy=
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null && "${sudo[@]}" chmod +x "$policy" && made_policy=1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get install -y -q tinyproxy squid >&2 \
  || { "${sudo[@]}" apt-get update -q >&2 && "${sudo[@]}" apt-get install -y -q tinyproxy squid >&2; } \
  || echo "install-proxy-test-tools: tinyproxy or squid could not be installed; the proxy tests will be skipped" >&2
if [ -n "$made_policy" ]; then "${sudo[@]}" rm -f "$policy"; fi
exit 0
