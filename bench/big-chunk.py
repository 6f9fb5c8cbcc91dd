#!/usr/bin/env python3
"""One very large chunk: `agent -p` answered by the scripted model with a single text chunk of N MiB, against the
same run answered with one byte (the difference is what the chunk itself costs: reading, parsing, printing).
Past the agent's per-event limit (16 MiB) the answer is refused at once.

Usage: python3 bench/big-chunk.py [MiB...] [-- AGENT_DIR]   (after bin/build; default sizes 1 4 8 15 50;
       AGENT_DIR: another built checkout to measure instead of this one)
"""
import importlib.util, json, os, statistics, subprocess, sys, tempfile, time, urllib.request

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(HERE, "bench"))
_spec = importlib.util.spec_from_file_location("first_prompt", os.path.join(HERE, "bench", "first-prompt.py"))
_first_prompt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_first_prompt)
start_model = _first_prompt.start_model  # the scripted model on a free port
from pipelined import agent_env, command_and_args  # noqa: E402


def configure(base, script):
    req = urllib.request.Request(base + "/_fake/configure", data=json.dumps({"queue": [script]}).encode(),
                                 headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req).read()


AGENT = HERE


def run(base, tmp):
    env = agent_env(tmp, base)
    t0 = time.perf_counter()
    p = subprocess.run([os.path.join(AGENT, "bin", "agent"), "-p", "hi"], cwd=tmp, env=env, capture_output=True)
    return time.perf_counter() - t0, p.returncode, len(p.stdout), p.stderr.decode(errors="replace").strip()[:160]


def main():
    global AGENT
    args, other = command_and_args(sys.argv[1:], [HERE])
    AGENT = os.path.abspath(other[0])
    sizes = [float(a) for a in args] or [1, 4, 8, 15, 50]
    server, base = start_model()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            base_times = []
            for _ in range(3):
                configure(base, "x")
                base_times.append(run(base, tmp)[0])
            baseline = statistics.median(base_times)
            print(f"one-byte answer: {baseline:.2f} s (median of 3)")
            for mib in sizes:
                configure(base, {"steps": [{"text": ["x" * int(mib * 1024 * 1024)]}]})
                t, rc, out, err = run(base, tmp)
                print(f"{mib:g} MiB chunk: {t:.2f} s, {t - baseline:+.2f} s over the one-byte answer, exit {rc}, "
                      f"{out} bytes printed{'; stderr: ' + err if err else ''}")
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
