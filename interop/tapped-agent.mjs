// Starts an ACP agent as a child process and taps both directions of its stdio for a driver built on the official
// SDK: every line the agent writes goes through the schema checker (`checker.agentLine`), every line the client
// sends is recorded (`checker.clientSent`), and both land in `events` in wire order ({dir: "in"|"out", msg, t};
// "out" = agent -> client). Give the SDK `ndJsonStream(tapped.stdin, tapped.stdout)`.

import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

export function spawnTapped(agentCmd, cwd, checker) {
  const events = [];
  const child = spawn(agentCmd[0], agentCmd.slice(1), { cwd, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (d) => {
    stderr += d;
    if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
  });
  const exited = new Promise((res) => child.on("exit", (code, signal) => res({ code, signal })));
  child.stdin.on("error", () => {}); // EPIPE when the agent dies; reported through its exit

  const decoder = new TextDecoder();
  let partial = "";
  const stdout = Readable.toWeb(child.stdout).pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        partial += decoder.decode(chunk, { stream: true });
        let nl;
        while ((nl = partial.indexOf("\n")) >= 0) {
          const line = partial.slice(0, nl);
          partial = partial.slice(nl + 1);
          if (line.trim() === "") continue;
          const msg = checker.agentLine(line);
          events.push({ dir: "out", msg, t: Date.now() });
        }
        controller.enqueue(chunk);
      },
      flush() {
        if (partial.trim()) checker.agentLine(partial); // a last line without newline is still checked
      },
    }),
  );
  const stdinWeb = Writable.toWeb(child.stdin);
  const stdin = new WritableStream({
    async write(chunk) {
      for (const line of decoder.decode(chunk).split("\n")) {
        if (!line.trim()) continue;
        const msg = JSON.parse(line);
        checker.clientSent(msg);
        events.push({ dir: "in", msg, t: Date.now() });
      }
      const w = stdinWeb.getWriter();
      try {
        await w.write(chunk);
      } finally {
        w.releaseLock();
      }
    },
    async close() {
      child.stdin.end();
    },
  });
  return { child, events, exited, stdin, stdout, stderr: () => stderr };
}

/** `promise`, or a rejection naming `what` after `ms` milliseconds. */
export function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, rej) => {
      timer = setTimeout(() => rej(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
