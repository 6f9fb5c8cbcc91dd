#!/usr/bin/env python3
"""Memory after long answers: RSS of a fresh `bin/agent --acp` after one answer of N streamed chunks, for a short
and a long answer (default 20,000 and 600,000 chunks), and their ratio. The live heap after either is small; the ratio
says whether the heap, once grown by the long answer, is given back.

Usage: python3 bench/answer-memory.py [short long] [-- command...]   (after bin/build)
"""
import importlib.util, json, os, subprocess, sys, tempfile, time, urllib.request

HERE = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(HERE, "bench"))
_spec = importlib.util.spec_from_file_location("first_prompt", os.path.join(HERE, "bench", "first-prompt.py"))
_first_prompt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_first_prompt)
from startup import rss_kb  # noqa: E402
from pipelined import agent_env, command_and_args  # noqa: E402


def answer_rss(cmd, base, chunks, tmp):
    body = json.dumps({"queue": [{"steps": [{"text": ["word "] * chunks}]}]}).encode()
    urllib.request.urlopen(urllib.request.Request(base + "/_fake/configure", data=body,
                                                  headers={"Content-Type": "application/json"})).read()
    env = agent_env(tmp, base)
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)

    def send(m):
        p.stdin.write((json.dumps(m) + "\n").encode())
        p.stdin.flush()

    def until(i):
        while True:
            m = json.loads(p.stdout.readline())
            if m.get("id") == i:
                return m
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
    until(1)
    send({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": tmp, "mcpServers": []}})
    sid = until(2)["result"]["sessionId"]
    send({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
          "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "talk"}]}})
    until(3)
    time.sleep(2)
    rss = rss_kb(p.pid) / 1024
    p.kill()
    return rss


def main():
    args, cmd = command_and_args(sys.argv[1:], [os.path.join(HERE, "bin", "agent"), "--acp"])
    short, long_ = (int(args[0]), int(args[1])) if len(args) >= 2 else (20_000, 600_000)
    server, base = _first_prompt.start_model()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            a = answer_rss(cmd, base, short, tmp)
            b = answer_rss(cmd, base, long_, tmp)
            print(f"RSS after a {short}-chunk answer {a:.0f} MB, after a {long_}-chunk answer {b:.0f} MB: ratio {b / a:.2f}")
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
