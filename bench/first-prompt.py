#!/usr/bin/env python3
"""First answer of a fresh agent: time from session/prompt to the first streamed chunk, for the first and the
second prompt of a new process, against the scripted model (FakeModelServer, started here on a free port).
The model's own latency is measured in the same run: the same request sent straight to the fake server on a new
connection, timed to its first streamed byte; the figure that matters is the agent's first chunk minus that.

Usage: python3 bench/first-prompt.py [runs] [REF_DIR...]
  runs     fresh agent processes per build (default 10)
  REF_DIR  other checkouts, each built (bin/build), measured interleaved with this one, e.g. main's build in /tmp
"""
import http.client, json, os, statistics, subprocess, sys, tempfile, time

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(HERE, "bench"))
from startup import cpu_ms  # noqa: E402


def start_model():
    p = subprocess.Popen([os.path.join(HERE, "bench", "run-java.sh"), "cn.agentao.agent.testing.FakeModelServer"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=HERE)
    while True:
        line = p.stderr.readline().decode()
        if not line:
            sys.exit("FakeModelServer did not start")
        if "listening on" in line:
            return p, line.strip().rsplit(" ", 1)[1]


def direct(base):
    """The model's own latency: a streamed chat request on a new connection, to the first byte of the answer."""
    host, port = base.split("//")[1].split(":")
    body = json.dumps({"model": "fake-model", "stream": True, "messages": [{"role": "user", "content": "hi"}]})
    t0 = time.perf_counter()
    c = http.client.HTTPConnection(host, int(port))
    c.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json", "Authorization": "Bearer k"})
    r = c.getresponse()
    r.read(1)
    t = (time.perf_counter() - t0) * 1000
    r.read()
    c.close()
    return t


def one(agent_dir, env, tmp):
    p = subprocess.Popen([os.path.join(agent_dir, "bin", "agent"), "--acp"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)

    def send(m):
        p.stdin.write((json.dumps(m) + "\n").encode()); p.stdin.flush()

    def until(pred):
        while True:
            m = json.loads(p.stdout.readline())
            if pred(m):
                return m
    chunk = lambda m: m.get("params", {}).get("update", {}).get("sessionUpdate") == "agent_message_chunk"
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
    until(lambda m: m.get("id") == 1)
    send({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": tmp, "mcpServers": []}})
    sid = until(lambda m: m.get("id") == 2)["result"]["sessionId"]
    out = []
    for rid in (3, 4):
        t0 = time.perf_counter()
        c0 = cpu_ms(p.pid)
        send({"jsonrpc": "2.0", "id": rid, "method": "session/prompt",
              "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}})
        until(chunk)
        out.append((time.perf_counter() - t0) * 1000)
        out.append(cpu_ms(p.pid) - c0)
        until(lambda m: m.get("id") == rid)
    p.stdin.close(); p.wait()
    return out


def main():
    args = sys.argv[1:]
    runs = int(args.pop(0)) if args and args[0].isdigit() else 10
    builds = [HERE] + [os.path.abspath(a) for a in args]
    model, base = start_model()
    try:
        tmp = tempfile.mkdtemp()
        env = dict(os.environ, OPENAI_API_KEY="test-key", OPENAI_BASE_URL=base + "/v1", OPENAI_MODEL="fake-model",
                   AGENT_SESSIONS_DIR=tmp + "/s", XDG_CONFIG_HOME=tmp + "/c", XDG_DATA_HOME=tmp + "/d")
        for b in builds:
            one(b, env, tmp)  # warm the page cache
        res = {b: [] for b in builds}
        model_ms = []
        for _ in range(runs):
            for b in builds:  # interleaved, so the machine's load falls on each build alike
                model_ms.append(direct(base))
                res[b].append(one(b, env, tmp))
        m = statistics.median(model_ms)
        print(f"runs={runs} load average {os.getloadavg()[0]:.1f}; model's own latency (direct, new connection): median {m:.1f} ms")
        first0 = None
        for b in builds:
            first = statistics.median(r[0] for r in res[b]); second = statistics.median(r[2] for r in res[b])
            cpu = statistics.median(r[1] for r in res[b])
            if first0 is None:
                first0, cpu0 = first, cpu
            print(f"{b}: first prompt -> first chunk median {first:.0f} ms ({first - m:.0f} ms over the model; "
                  f"CPU used {cpu:.0f} ms), second prompt {second:.0f} ms; ratio to {builds[0]}: {first / first0:.2f} "
                  f"(CPU {cpu / cpu0:.2f})")
    finally:
        model.terminate(); model.wait()


if __name__ == "__main__":  # bench/big-chunk.py imports start_model from here
    main()
