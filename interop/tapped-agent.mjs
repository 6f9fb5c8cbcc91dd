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

/**
 * Ends the agent's input and waits for it to exit (killing it after 10 s), then checks, through `check`, that it
 * exited 0, that every agent line matched the schema and that every client request was answered. Returns what to
 * put in the driver's summary: {exit, schema}.
 */
export async function endAndCheck(tapped, schema, checker, check, onFailure) {
  try {
    tapped.child.stdin.end();
  } catch {}
  let exit;
  try {
    exit = await withTimeout(tapped.exited, 10_000, "agent exit after stdin EOF");
  } catch (e) {
    onFailure(String(e.message));
    tapped.child.kill("SIGKILL");
    exit = await tapped.exited;
  }
  check(exit.code === 0, "the agent exits 0 on stdin EOF", exit);
  const summary = {
    path: schema.path,
    sdkVersion: schema.version,
    agentMessages: checker.agentMessages,
    counts: checker.counts,
    violations: checker.violations,
    unansweredRequests: [...checker.pendingClientRequests.entries()],
  };
  check(checker.violations.length === 0, "every agent message matches the ACP v1 schema", `${checker.violations.length} violation(s)`);
  check(checker.pendingClientRequests.size === 0, "every client request was answered", summary.unansweredRequests);
  return { exit, schema: summary };
}

/** Prints the driver's summary as JSON on stdout and exits 0 when nothing failed, else 1 (with the agent's stderr). */
export function printSummaryAndExit(summary, tapped) {
  summary.ok = summary.failures.length === 0;
  if (!summary.ok) summary.stderrTail = tapped.stderr().slice(-6000);
  process.stdout.write(JSON.stringify(summary, null, 2) + "\n");
  process.exitCode = summary.ok ? 0 : 1;
  setTimeout(() => process.exit(process.exitCode), 200).unref();
}
