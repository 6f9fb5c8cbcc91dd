# Sourced by bin/agent, bin/build, bin/test and bin/release: sets JAVA_CMD (and JAVA_HOME) to a JDK/JRE 21 or newer.
# Looks at $JAVA_HOME, then `java` on PATH, then the usual install locations; picks the newest found.
_agent_java_major() {
  # Cheap: the JDK's release file names its version; only without one do we ask the JVM itself.
  local home rel v
  home=$(cd "$(dirname "$(readlink -f "$1")")/.." 2>/dev/null && pwd)
  rel="$home/release"
  if [ -f "$rel" ]; then
    v=$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$rel")
    v=${v#1.}
    if [ -n "$v" ]; then echo "${v%%[.+-]*}"; return; fi
  fi
  "$1" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version =/ {print $2; exit}' | cut -d. -f1
}
_agent_find_jdk() {
  local need="${1:-21}" best="" best_major=0 cand major home
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    major=$(_agent_java_major "$JAVA_HOME/bin/java")
    if [ -n "$major" ] && [ "$major" -ge "$need" ]; then JAVA_CMD="$JAVA_HOME/bin/java"; return 0; fi
  fi
  for cand in $(command -v java 2>/dev/null) /usr/lib/jvm/*/bin/java /opt/java/*/bin/java /opt/*jdk*/bin/java \
              /usr/local/*jdk*/bin/java "$HOME"/.sdkman/candidates/java/*/bin/java "$HOME"/.jdks/*/bin/java \
              /Library/Java/JavaVirtualMachines/*/Contents/Home/bin/java; do
    [ -x "$cand" ] || continue
    major=$(_agent_java_major "$cand")
    [ -n "$major" ] || continue
    if [ "$major" -ge "$need" ] && [ "$major" -gt "$best_major" ]; then best="$cand"; best_major="$major"; fi
  done
  if [ -z "$best" ]; then
    echo "agent: needs a Java $need or newer JDK; none was found in \$JAVA_HOME, on PATH or under /usr/lib/jvm." >&2
    echo "agent: install one and/or set JAVA_HOME to it, e.g. Temurin from the Adoptium apt repository" >&2
    echo "agent: (https://adoptium.net/installation/linux/, then: apt-get install temurin-21-jdk), with SDKMAN" >&2
    echo "agent: (https://sdkman.io, then: sdk install java), or on macOS: brew install --cask temurin@21." >&2
    return 1
  fi
  JAVA_CMD="$best"
  home=$(cd "$(dirname "$best")/.." && pwd)
  export JAVA_HOME="$home"
}
_agent_find_jdk "${AGENT_MIN_JAVA:-21}"
