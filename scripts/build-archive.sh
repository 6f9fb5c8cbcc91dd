#!/usr/bin/env bash
# Builds the release archives from target/agent.jar and target/lib (`./mvnw package` first; bin/release does it all):
#   OUT/agent-VERSION-PLATFORM.zip, the standalone archive: a runtime made by jlink with only
#     the modules the agent needs (computed by jdeps), the application, and an AOT cache trained on that runtime
#     during this build (made afresh every time: a cache from another JVM or an older jar is refused or stale).
#     Runs where no Java is installed: unpack, then agent/bin/agent --acp (agent\bin\agent.cmd on Windows).
#   OUT/agent-VERSION.zip, the plain JVM archive for machines with a JDK 21+ (no runtime, no AOT cache).
#   OUT/SHA256SUMS.
# Usage: scripts/build-archive.sh [--fast] [--out DIR] [--platform NAME]     (default OUT: target/release)
#   --fast  zip -1 and no checksums (what the tests build; the same runtime, cache and layout).
# Zip everywhere: Homebrew formulae and Scoop manifests take .zip; zip keeps the executable bits (unzip restores them).
# Needs the JDK the jar was built with (JAVA_HOME or scripts/find-jdk.sh); JDK 25+ for the AOT cache.
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
fast="" out="$here/target/release" platform=""
while [ $# -gt 0 ]; do
  case "$1" in
    --fast) fast=1 ;;
    --out) out="$2"; shift ;;
    --platform) platform="$2"; shift ;;
    *) echo "build-archive: unknown argument $1 (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
  shift
done
. "$here/scripts/find-jdk.sh"
jar="$here/target/agent.jar"
if [ ! -f "$jar" ] || [ ! -d "$here/target/lib" ]; then
  echo "build-archive: $jar or target/lib is missing; run ./mvnw package first (or bin/release)" >&2
  exit 1
fi
if [ -z "$platform" ]; then  # JReleaser's platform names
  case "$(uname -s)" in Linux) os=linux ;; Darwin) os=osx ;; MINGW*|MSYS*|CYGWIN*) os=windows ;; *) os=unknown ;; esac
  case "$(uname -m)" in x86_64|amd64) arch=x86_64 ;; aarch64|arm64) arch=aarch_64 ;; *) arch="$(uname -m)" ;; esac
  platform="$os-$arch"
fi
version="$("$JAVA_CMD" -jar "$jar" --version | sed -n 's/^agent //p')"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

# The application, laid out as both archives have it: agent/app/{agent.jar,lib/,jvm.options}, agent/bin/,
# agent/README.md and agent/LICENSE.
app_layout() {
  local dir="$1/agent"
  mkdir -p "$dir/bin" "$dir/app/lib"
  cp "$jar" "$dir/app/agent.jar"
  cp "$here"/target/lib/*.jar "$dir/app/lib/"
  cp "$here/launcher/jvm.options" "$dir/app/jvm.options"
  cp "$here/launcher/agent" "$here/launcher/agent.cmd" "$dir/bin/"
  cp "$here/README.md" "$here/LICENSE" "$dir/"
  chmod +x "$dir/bin/agent"
  if [ -f "$here/target/bom.json" ]; then cp "$here/target/bom.json" "$dir/app/sbom.cdx.json"; fi
}
pack() {  # pack DIR ARCHIVE
  local dir="$1" archive="$2"
  rm -f "$archive"
  if command -v zip >/dev/null; then (cd "$dir" && zip -q -r "-${ZIP_LEVEL:-9}" "$archive" agent)
  else "$JAVA_HOME/bin/jar" --create --no-manifest --file "$archive" -C "$dir" agent; fi  # Windows runners: no zip
}

# 1. Standalone: jlink runtime + app + AOT cache trained on that runtime.
std="$stage/standalone"
app_layout "$std"
modules="$("$JAVA_HOME/bin/jdeps" -q --ignore-missing-deps --print-module-deps --multi-release 21 \
             --class-path "$here/target/lib/*" "$jar" "$here"/target/lib/*.jar)"
# Loaded through service lookups jdeps cannot see: elliptic-curve TLS (a module of its own before JDK 22).
if "$JAVA_CMD" --list-modules | grep -q '^jdk.crypto.ec@'; then modules="$modules,jdk.crypto.ec"; fi
"$JAVA_HOME/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
  --output "$std/agent/runtime"
# The cache must come out of a JDK 25+ (older ones have none: the archive then starts without it).
required=""; [ "$(_agent_java_major "$JAVA_CMD")" -ge 25 ] && required=1
AOT_REQUIRED="$required" bash "$here/scripts/train-aot.sh" "$std/agent/runtime" "$std/agent/app/agent.jar" "$std/agent/app/agent.aot"
standalone="$out/agent-$version-$platform.zip"
[ -n "$fast" ] && export ZIP_LEVEL=1
pack "$std" "$standalone"
echo "build-archive: $standalone (modules: $modules)" >&2

# 2. Plain JVM archive: the same app; the launcher finds a JDK 21+.
plain="$stage/plain"
app_layout "$plain"
cp "$here/scripts/find-jdk.sh" "$plain/agent/app/find-jdk.sh"
pack "$plain" "$out/agent-$version.zip"
echo "build-archive: $out/agent-$version.zip" >&2

[ -n "$fast" ] && exit 0
(cd "$out" && sha256sum agent-"$version"*.zip > SHA256SUMS)
