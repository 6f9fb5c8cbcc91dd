#!/usr/bin/env python3
"""Cold start benchmark: process start -> initialize answered, and RSS after one session/new.

Usage: python3 bench/startup.py [runs] [-- command...]   (default command: bin/agent --acp)
"""
import json, os, subprocess, sys, tempfile, time, statistics

def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0

def cpu_ms(pid):
    """CPU time used so far by all the process's threads (ns precision): the work done, whatever the machine's load."""
    total = 0
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total / 1e6

def one(cmd, env, cwd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    p.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}\n')
    p.stdin.flush()
    line = p.stdout.readline()
    t_init = (time.perf_counter() - t0) * 1000
    c_init = cpu_ms(p.pid)
    assert json.loads(line)["id"] == 1, line
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "session/new",
                              "params": {"cwd": cwd, "mcpServers": []}}).encode() + b"\n")
    p.stdin.flush()
    while True:
        msg = json.loads(p.stdout.readline())
        if msg.get("id") == 2:
            break
    t_new = (time.perf_counter() - t0) * 1000
    c_new = cpu_ms(p.pid)
    time.sleep(0.3)  # let the session settle (updates written, lazy work done)
    rss = rss_kb(p.pid) / 1024
    p.stdin.close()
    p.wait(timeout=5)
    return t_init, t_new, rss, c_init, c_new

def main():
    args = sys.argv[1:]
    runs = 20
    if args and args[0].isdigit():
        runs = int(args.pop(0))
    cmd = args[1:] if args and args[0] == "--" else [os.path.join(os.path.dirname(__file__), "..", "bin", "agent"), "--acp"]
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, OPENAI_API_KEY="bench-key", XDG_DATA_HOME=tmp + "/data", XDG_CONFIG_HOME=tmp + "/config")
    one(cmd, env, tmp)  # warm the page cache
    res = [one(cmd, env, tmp) for _ in range(runs)]
    init = [r[0] for r in res]; new = [r[1] for r in res]; rss = [r[2] for r in res]
    print(f"runs={runs}")
    print(f"initialize round trip: median {statistics.median(init):.0f} ms, p90 {sorted(init)[int(runs*0.9)-1]:.0f} ms, min {min(init):.0f} ms")
    print(f"session/new answered at: median {statistics.median(new):.0f} ms")
    print(f"RSS after session/new: median {statistics.median(rss):.1f} MB, max {max(rss):.1f} MB")
    print(f"CPU time used (all threads; less sensitive to a busy machine): by initialize answered median "
          f"{statistics.median(r[3] for r in res):.0f} ms, by session/new answered {statistics.median(r[4] for r in res):.0f} ms")
    print(f"load average {os.getloadavg()[0]:.1f}")

if __name__ == "__main__":
    main()
