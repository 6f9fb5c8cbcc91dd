#!/usr/bin/env bash
# Makes sure PostgreSQL's server programs (initdb, pg_ctl, postgres: Debian's postgresql package) are installed, so
# the PostgreSQL store tests can start a throwaway server in a temporary data directory. Installs the package when
# missing on Debian/Ubuntu with root or passwordless sudo. The tests fail with a clear message when it is absent.
set -euo pipefail
[ "$(uname -s)" = Linux ] || exit 0
found() { ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; }
found && exit 0
if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then sudo=""; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo=none; fi
  if [ "$sudo" != none ]; then
    echo "install-postgres: installing the Debian package postgresql" >&2
    $sudo apt-get install -y -q postgresql >/dev/null 2>&1 || { $sudo apt-get update -q >/dev/null && $sudo apt-get install -y -q postgresql >/dev/null; }
    found && exit 0
  fi
fi
echo "install-postgres: PostgreSQL (initdb, pg_ctl) is missing and could not be installed here (needs root on" >&2
echo "  Debian/Ubuntu: apt-get install postgresql). The PostgreSQL store tests will fail." >&2
exit 0
