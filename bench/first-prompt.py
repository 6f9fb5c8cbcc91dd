#!/usr/bin/env python3
"""First answer of a fresh agent: time from session/prompt to the first streamed chunk, and to the answer,
for the first and the second prompt. Needs a fake (or real) OpenAI-compatible server.

Usage: python3 bench/first-prompt.py BASE_URL [runs]   e.g. a FakeModelServer started with
  java -cp target/test-classes:target/classes:$(cat target/bench.cp) cn.agentao.agent.testing.FakeModelServer --port 18557
"""
import json, os, statistics, subprocess, sys, tempfile, time

def main():
    base = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, OPENAI_API_KEY="test-key", OPENAI_BASE_URL=base, OPENAI_MODEL="fake-model",
               AGENT_SESSIONS_DIR=tmp + "/s", XDG_CONFIG_HOME=tmp + "/c")
    agent = [os.path.join(os.path.dirname(__file__), "..", "bin", "agent"), "--acp"]
    first, second = [], []
    for _ in range(runs):
        p = subprocess.Popen(agent, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
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
        for rid, out in ((3, first), (4, second)):
            t0 = time.perf_counter()
            send({"jsonrpc": "2.0", "id": rid, "method": "session/prompt",
                  "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}})
            until(chunk)
            out.append((time.perf_counter() - t0) * 1000)
            until(lambda m: m.get("id") == rid)
        p.stdin.close(); p.wait()
    print(f"runs={runs}")
    print(f"first prompt -> first chunk:  median {statistics.median(first):.0f} ms")
    print(f"second prompt -> first chunk: median {statistics.median(second):.0f} ms")

main()
