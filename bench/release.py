#!/usr/bin/env python3
"""The standalone release archive against the in-repo bin/agent, measured in the same run, rounds interleaved:
archive size, cold start -> initialize answered, and `agent --version`. The archive runs with no java on PATH
and no JAVA_HOME (its own runtime); bin/agent with the JDK it finds.

Usage: python3 bench/release.py [runs] [ARCHIVE.zip]   (default: the newest target/release/agent-*-<platform>.zip;
build it with bin/release, or scripts/build-archive.sh after bin/build)
"""
import glob, os, shutil, statistics, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(__file__))
from startup import one  # noqa: E402

here = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

def version_ms(cmd, env):
    t0 = time.perf_counter()
    subprocess.run(cmd + ["--version"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - t0) * 1000

def main():
    args = sys.argv[1:]
    runs = int(args.pop(0)) if args and args[0].isdigit() else 20
    if args:
        archive = args[0]
    else:
        found = [z for z in glob.glob(os.path.join(here, "target/release/agent-*-*_64.zip")) if "native" not in z]
        archive = max(found, key=os.path.getmtime)
    tmp = tempfile.mkdtemp()
    subprocess.run(["unzip", "-q", archive, "-d", tmp + "/unpacked"], check=True)
    tools = tmp + "/tools"  # a PATH with the launcher's tools and no java
    os.makedirs(tools)
    for t in ("bash", "dirname", "readlink"):
        os.symlink(shutil.which(t), os.path.join(tools, t))
    base = {"HOME": tmp, "OPENAI_API_KEY": "bench-key", "XDG_DATA_HOME": tmp + "/data", "XDG_CONFIG_HOME": tmp + "/config"}
    arc_env = dict(base, PATH=tools)
    repo_env = dict(os.environ, **base)
    arc = [tmp + "/unpacked/agent/bin/agent"]
    repo = [os.path.join(here, "bin/agent")]
    for cmd, env in ((arc, arc_env), (repo, repo_env)):  # warm the page cache
        one(cmd + ["--acp"], env, tmp); version_ms(cmd, env)
    a_init, r_init, a_ver, r_ver = [], [], [], []
    for _ in range(runs):
        a_init.append(one(arc + ["--acp"], arc_env, tmp)[0]); r_init.append(one(repo + ["--acp"], repo_env, tmp)[0])
        a_ver.append(version_ms(arc, arc_env)); r_ver.append(version_ms(repo, repo_env))
    med = statistics.median
    unpacked = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(tmp + "/unpacked") for f in fs)
    print(f"archive: {os.path.basename(archive)}: {os.path.getsize(archive) / 1e6:.1f} MB compressed, {unpacked / 1e6:.0f} MB unpacked")
    print(f"runs={runs}")
    print(f"initialize round trip: archive median {med(a_init):.0f} ms, bin/agent median {med(r_init):.0f} ms, "
          f"ratio {med(a_init) / med(r_init):.2f}")
    print(f"agent --version: archive median {med(a_ver):.0f} ms (max {max(a_ver):.0f}), bin/agent median {med(r_ver):.0f} ms")
    shutil.rmtree(tmp)

main()
