#!/usr/bin/env python3
"""ACP input under a flood: N pipelined `session/list` requests written as fast as the pipe takes them while the
answers are read, then the process's RSS (peak while it ran, and at the end) against its RSS after `initialize`.

Usage: python3 bench/pipelined.py [N] [-- command...]   (default 100000; default command: bin/agent --acp)
"""
import json, os, subprocess, sys, tempfile, threading, time

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0


def agent_env(tmp, model_base_url):
    """A clean environment for an agent under `tmp`, its OpenAI-compatible provider at `model_base_url`."""
    env = {"PATH": os.environ["PATH"], "HOME": tmp, "XDG_CONFIG_HOME": tmp + "/c", "XDG_DATA_HOME": tmp + "/d",
           "XDG_STATE_HOME": tmp + "/s", "AGENT_SESSIONS_DIR": tmp + "/store", "OPENAI_API_KEY": "test-key",
           "OPENAI_BASE_URL": model_base_url + "/v1", "OPENAI_MODEL": "fake-model"}
    for k in ("JAVA_HOME", "JAVA_TOOL_OPTIONS"):
        if k in os.environ:
            env[k] = os.environ[k]
    return env


def command_and_args(argv, default_cmd):
    """`args [-- command...]`: the arguments before `--`, and the command after it (else `default_cmd`)."""
    if "--" in argv:
        return argv[:argv.index("--")], argv[argv.index("--") + 1:]
    return argv, default_cmd


def main():
    args, cmd = command_and_args(sys.argv[1:], [os.path.join(HERE, "bin", "agent"), "--acp"])
    n = int(args[0]) if args else 100_000
    with tempfile.TemporaryDirectory() as tmp:
        env = agent_env(tmp, "http://127.0.0.1:9")
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        p.stdin.write(b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}\n')
        p.stdin.flush()
        p.stdout.readline()
        time.sleep(1)
        base = rss_mb(p.pid)
        peak = [base]
        done = threading.Event()

        def sample():
            while not done.is_set():
                peak[0] = max(peak[0], rss_mb(p.pid))
                time.sleep(0.05)

        def write():
            for i in range(1, n + 1):
                p.stdin.write(b'{"jsonrpc":"2.0","id":%d,"method":"session/list","params":{}}\n' % i)
            p.stdin.flush()

        threading.Thread(target=sample, daemon=True).start()
        t0 = time.perf_counter()
        threading.Thread(target=write, daemon=True).start()
        answered = 0
        while answered < n:
            if not p.stdout.readline():
                break
            answered += 1
        elapsed = time.perf_counter() - t0
        done.set()
        end = rss_mb(p.pid)
        p.kill()
        print(f"{n} pipelined session/list: {answered} answered in {elapsed:.1f} s; RSS after initialize {base:.0f} MB, "
              f"peak {peak[0]:.0f} MB ({peak[0] / base:.2f}x), at the end {end:.0f} MB")


if __name__ == "__main__":
    main()
