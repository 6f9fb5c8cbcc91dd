#!/usr/bin/env python3
"""The terminal door's timings, each with a reference measured in the same run (the machine is shared, so only
ratios within one run compare):

  prompt   time from starting `bin/agent` in a tmux pane to its chat prompt on the screen,
           against `bin/agent --version` printed in the same kind of pane (process start + JVM, nothing else)
  ready    from the same start until a key typed the moment the prompt showed is drawn by the line editor (the prompt
           is drawn before JLine is ready; the key waits, unechoed, until it is)
  cancel   Ctrl-C during a streaming answer -> "cancelled" on the screen (polled every 5 ms)
  print    `bin/agent -p "hi"` end to end against a local scripted model, against the same one-shot through
           ACP: acpx (`exec`) driving `bin/agent --acp` (Agentao's `-p` cannot be installed here: no PyPI)

Usage: python3 bench/terminal.py [runs] [ACPX]   (tmux needed; ACPX defaults to interop/node_modules/.bin/acpx)
"""
import http.server, json, os, shutil, statistics, subprocess, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
AGENT = os.path.join(HERE, "..", "bin", "agent")


class Model(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible stream: "hang" in the prompt streams slowly for a minute, anything else answers at once."""
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        slow = "hang" in json.dumps(body["messages"][-1])
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        try:
            for i in range(600 if slow else 1):
                d = {"choices": [{"index": 0, "delta": {"content": "word%d " % i if slow else "Hello from the model."}}]}
                self.wfile.write(b"data: " + json.dumps(d).encode() + b"\n\n")
                self.wfile.flush()
                if slow:
                    time.sleep(0.1)
            self.wfile.write(b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n')
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *a):
        pass


def tmux(sock, *args):
    return subprocess.run(["tmux", "-S", sock, "-f", "/dev/null", *args], capture_output=True, text=True).stdout


def pane_until(cwd, cmd, env, text, tmp):
    """Starts cmd in a fresh tmux server; returns (ms until `text` is on the screen, socket)."""
    sock = os.path.join(tmp, "tmux-%d.sock" % time.perf_counter_ns())
    envs = " ".join("%s='%s'" % kv for kv in env.items())
    t0 = time.perf_counter()
    tmux(sock, "new-session", "-d", "-x", "100", "-y", "40", "-c", cwd, "bash", "-c", "env %s %s; sleep 60" % (envs, cmd))
    while text not in tmux(sock, "capture-pane", "-p"):
        if time.perf_counter() - t0 > 60:
            raise SystemExit("timed out waiting for %r" % text)
        time.sleep(0.005)
    return (time.perf_counter() - t0) * 1000, sock


def median(xs):
    return statistics.median(xs)


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    acpx = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "interop", "node_modules", ".bin", "acpx")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Model)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d/v1" % server.server_address[1]
    tmp = tempfile.mkdtemp()
    ws = os.path.join(tmp, "ws")
    os.makedirs(ws)
    env = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": base, "OPENAI_MODEL": "fake-model", "TERM": "xterm-256color",
           "AGENT_SESSIONS_DIR": tmp + "/store", "XDG_STATE_HOME": tmp + "/state", "XDG_CONFIG_HOME": tmp + "/config",
           "PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", tmp)}
    prompt, ready, version, cancel, printed, acp = [], [], [], [], [], []
    for _ in range(runs):
        ms, sock = pane_until(ws, AGENT + " --version", env, "agent ", tmp)
        version.append(ms)
        tmux(sock, "kill-server")
        ms, sock = pane_until(ws, AGENT, env, "\u203a", tmp)
        prompt.append(ms)
        t0 = time.perf_counter() - ms / 1000
        tmux(sock, "send-keys", "-l", "q")
        while "\u203a q" not in tmux(sock, "capture-pane", "-p"):
            time.sleep(0.005)
        ready.append((time.perf_counter() - t0) * 1000)
        tmux(sock, "send-keys", "BSpace")
        tmux(sock, "send-keys", "hang on", "Enter")
        while "word3" not in tmux(sock, "capture-pane", "-p"):
            time.sleep(0.005)
        t0 = time.perf_counter()
        tmux(sock, "send-keys", "C-c")
        while "cancelled" not in tmux(sock, "capture-pane", "-p"):
            time.sleep(0.005)
        cancel.append((time.perf_counter() - t0) * 1000)
        tmux(sock, "kill-server")

        penv = dict(env)
        t0 = time.perf_counter()
        out = subprocess.run([AGENT, "-p", "hi"], cwd=ws, env=penv, capture_output=True, text=True)
        printed.append((time.perf_counter() - t0) * 1000)
        assert out.returncode == 0 and "Hello from the model." in out.stdout, out
        if os.path.exists(acpx):
            t0 = time.perf_counter()
            out = subprocess.run([acpx, "--agent", AGENT + " --acp", "--approve-reads", "exec", "hi"], cwd=ws, env=penv,
                                 capture_output=True, text=True)
            acp.append((time.perf_counter() - t0) * 1000)
            assert "Hello from the model." in out.stdout, out
    print("runs=%d (medians, ms), load average %s" % (runs, " ".join("%.2f" % l for l in os.getloadavg())))
    print("interactive prompt on screen: %.0f  (reference `agent --version` in a pane: %.0f; ratio %.2f)"
          % (median(prompt), median(version), median(prompt) / median(version)))
    print("a key typed at the prompt drawn by the line editor: %.0f  (ratio to `agent --version` %.2f)"
          % (median(ready), median(ready) / median(version)))
    print("Ctrl-C during an answer -> 'cancelled' on screen: %.0f (max %.0f)" % (median(cancel), max(cancel)))
    if acp:
        print("agent -p end to end: %.0f  (reference acpx exec over --acp: %.0f; ratio %.2f)"
              % (median(printed), median(acp), median(printed) / median(acp)))
    else:
        print("agent -p end to end: %.0f  (acpx not found at %s: no reference)" % (median(printed), acpx))
    shutil.rmtree(tmp, ignore_errors=True)
    server.shutdown()


if __name__ == "__main__":
    main()
