# Sourced by bin/build, bin/test and bin/release after scripts/find-jdk.sh: runs the pinned Maven wrapper
# (./mvnw, which fetches Maven from Maven Central once) on the JDK found, in batch mode, without colour codes
# and without the JDK 23+ warnings Maven's own libraries (Guice) trigger through sun.misc.Unsafe.
_agent_maven_opts() {
  local major
  major=$(_agent_java_major "$JAVA_CMD")
  if [ "${major:-0}" -ge 23 ]; then echo "--sun-misc-unsafe-memory-access=allow"; fi
}
agent_maven() {
  MAVEN_OPTS="$(_agent_maven_opts) ${MAVEN_OPTS:-}" "$here/mvnw" -B -Dstyle.color=never "$@"
}
