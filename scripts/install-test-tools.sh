#!/usr/bin/env bash
# Installs the command-line tools the security suites attack through (ParserSecurityIT): git, file, ripgrep (also
# what grep uses when installed: SearchEquivalenceIT compares it with the Java path);
# python3 (two SandboxSecurityIT payloads); zip/unzip for the release archive test (ArchiveIT); tmux, the real
# terminal the interactive chat's tests (ChatIT) type into and read from.
# Debian/Ubuntu only (apt-get); elsewhere it only reports what is missing.
set -euo pipefail
missing=()
command -v git >/dev/null 2>&1 || missing+=(git)
command -v file >/dev/null 2>&1 || missing+=(file)
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v zip >/dev/null 2>&1 || missing+=(zip)      # ArchiveIT packs and unpacks the release archives
command -v unzip >/dev/null 2>&1 || missing+=(unzip)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)    # ChatIT drives the chat in a tmux pane; LoginIT types into `agent login`
[ ${#missing[@]} -eq 0 ] && exit 0
if command -v apt-get >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get install -y --no-install-recommends "${missing[@]}" >&2 \
    || { $sudo apt-get update >&2 && $sudo apt-get install -y --no-install-recommends "${missing[@]}" >&2; } \
    || echo "install-test-tools: could not install ${missing[*]}; ParserSecurityIT will say so" >&2
else
  echo "install-test-tools: please install ${missing[*]} (the security tests use them)" >&2
fi
