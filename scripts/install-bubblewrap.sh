#!/usr/bin/env bash
# Makes sure bubblewrap (/usr/bin/bwrap, the Linux sandbox for shell commands) is installed, so the sandbox tests
# run. Installs the Debian package when missing and this is Debian/Ubuntu with root or passwordless sudo;
# otherwise explains what to do and carries on (the sandbox tests are then skipped and the agent falls back).
set -euo pipefail
[ "$(uname -s)" = Linux ] || exit 0
works() { /usr/bin/bwrap --unshare-all --die-with-parent --cap-drop ALL --ro-bind / / --dev /dev --proc /proc true 2>/dev/null; }
if [ -x /usr/bin/bwrap ]; then
  works && exit 0
  # Ubuntu 24.04 (GitHub's runners too) refuses unprivileged user namespaces; on CI only, allow them.
  knob=/proc/sys/kernel/apparmor_restrict_unprivileged_userns
  if [ -n "${CI:-}" ] && [ -f "$knob" ] && [ "$(cat "$knob")" = 1 ]; then
    echo "install-bubblewrap: CI: allowing unprivileged user namespaces (sysctl kernel.apparmor_restrict_unprivileged_userns=0)" >&2
    if [ "$(id -u)" = 0 ]; then sysctl -q -w kernel.apparmor_restrict_unprivileged_userns=0 || true
    else sudo -n sysctl -q -w kernel.apparmor_restrict_unprivileged_userns=0 || true; fi
    works && exit 0
  fi
  echo "install-bubblewrap: bwrap is installed but cannot create its namespaces here; the sandbox tests will be skipped." >&2
  exit 0
fi
if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then sudo=""; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo=none; fi
  if [ "$sudo" != none ]; then
    echo "install-bubblewrap: installing the Debian package bubblewrap" >&2
    $sudo apt-get install -y -q bubblewrap >/dev/null 2>&1 || { $sudo apt-get update -q >/dev/null && $sudo apt-get install -y -q bubblewrap >/dev/null; }
    [ -x /usr/bin/bwrap ] && exit 0
  fi
fi
echo "install-bubblewrap: /usr/bin/bwrap is missing and could not be installed here (needs root on Debian/Ubuntu:" >&2
echo "  apt-get install bubblewrap). The sandbox tests will be skipped; the agent will run commands without a sandbox." >&2
exit 0
