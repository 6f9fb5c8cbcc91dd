#!/usr/bin/env bash
# Installs tinyproxy, the real HTTP proxy the proxy tests start (on a free port, in the foreground, with their own
# configuration) when it is missing: Debian/Ubuntu packages through apt-get (as root, or with sudo when it needs no
# password). If it cannot be installed the proxy tests skip, saying why; the install itself never starts a proxy.
set -euo pipefail
if command -v tinyproxy >/dev/null 2>&1 || [ -x /usr/bin/tinyproxy ] || [ -x /usr/sbin/tinyproxy ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-proxy-test-tools: no apt-get here; install tinyproxy yourself or the proxy tests will be skipped" >&2
  exit 0
fi
sudo=()
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo=(sudo -n); else
    echo "install-proxy-test-tools: not root and no password-less sudo; the proxy tests will be skipped" >&2
    exit 0
  fi
fi
echo "install-proxy-test-tools: installing tinyproxy (apt-get)" >&2
# The package would start a system-wide proxy service; the tests run their own, so keep the service from starting.
policy=/usr/sbin/policy-rc.d
made_policy=
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null && "${sudo[@]}" chmod +x "$policy" && made_policy=1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get install -y -q tinyproxy >&2 \
  || { "${sudo[@]}" apt-get update -q >&2 && "${sudo[@]}" apt-get install -y -q tinyproxy >&2; } \
  || echo "install-proxy-test-tools: tinyproxy could not be installed; the proxy tests will be skipped" >&2
if [ -n "$made_policy" ]; then "${sudo[@]}" rm -f "$policy"; fi
exit 0
