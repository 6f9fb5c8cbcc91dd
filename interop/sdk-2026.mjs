#!/usr/bin/env node
// Drives the ACP features of late 2026 with the official TypeScript SDK (@agentclientprotocol/sdk) and checks
// every line the agent writes against the SDK's v1 schema (the unstable one, a superset, for session/fork):
// the terminal auth method and logout, session notices, compaction updates, elicitation (form mode), the cost in
// usage_update, and session/fork.
//
//   node interop/sdk-2026.mjs --cwd /abs/workspace -- /path/to/bin/agent --acp
//
// The agent's configuration must make session/new emit a notice (e.g. a bad config.json entry), give the model a
// price, and answer (FakeModelServer rules keyed on the last user message):
//   "2026: ask me"     -> an ask_user tool call, then any text once its result is back
//   "2026: second"     -> any text
//   "/compact"         -> (the summary request, last message "Write the summary now.") the summary text
//   "2026: in the fork" -> any text
// Prints one JSON summary on stdout; exits 0 when every check passed and no schema violation was seen, else 1.

import { isAbsolute, resolve } from "node:path";
import { client, ndJsonStream, methods, RequestError } from "@agentclientprotocol/sdk";
import { AcpSchema, ConnectionChecker, unstableSchemaPath } from "./acp-schema.mjs";
import { endAndCheck, printSummaryAndExit, spawnTapped, withTimeout } from "./tapped-agent.mjs";

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
const cwdAt = argv.indexOf("--cwd");
const opts = { cwd: cwdAt >= 0 ? argv[cwdAt + 1] : process.cwd(), agent: sep >= 0 ? argv.slice(sep + 1) : [] };
if (opts.agent.length === 0) throw new Error("usage: sdk-2026.mjs --cwd DIR -- AGENT_CMD [ARGS...]");
if (!isAbsolute(opts.cwd)) opts.cwd = resolve(opts.cwd);

const summary = { ok: false, failures: [], steps: {} };
const failures = summary.failures;
function check(cond, what, detail) {
  if (!cond) failures.push(detail === undefined ? what : `${what}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
  return !!cond;
}

const schema = new AcpSchema(unstableSchemaPath());
const checker = new ConnectionChecker(schema);
const tapped = spawnTapped(opts.agent, opts.cwd, checker);

const updates = []; // {sessionId, update}
const elicitations = [];
const app = client({ name: "agent-interop-2026" })
  .onNotification(methods.client.session.update, ({ params }) => {
    updates.push({ sessionId: params.sessionId, update: params.update });
  })
  .onRequest(methods.client.elicitation.create, ({ params }) => {
    elicitations.push(params);
    return { action: "accept", content: { answer: "teal" } };
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    const allow = params.options.find((o) => o.kind === "allow_once");
    return allow ? { outcome: { outcome: "selected", optionId: allow.optionId } } : { outcome: { outcome: "cancelled" } };
  });

const of = (sessionId, kind) => updates.filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === kind).map((u) => u.update);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function prompt(ctx, sessionId, text) {
  return withTimeout(ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] }), 60_000, `prompt "${text}"`);
}

async function workflow(ctx) {
  const S = summary.steps;
  const init = await ctx.request(methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: {
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
      auth: { terminal: true },
      session: { notices: {}, compaction: {} },
      elicitation: { form: {} },
    },
    clientInfo: { name: "agent-interop-2026", version: "1" },
  });
  const terminal = init.authMethods.find((m) => m.type === "terminal");
  S.initialize = { authMethods: init.authMethods.map((m) => ({ id: m.id, type: m.type ?? "agent", args: m.args })), auth: init.agentCapabilities?.auth,
    fork: init.agentCapabilities?.sessionCapabilities?.fork ?? null };
  check(terminal && JSON.stringify(terminal.args) === '["login"]', "a terminal auth method running `agent login`", S.initialize.authMethods);
  check(init.agentCapabilities?.auth?.logout, "logout advertised", init.agentCapabilities);
  check(S.initialize.fork, "sessionCapabilities.fork advertised", init.agentCapabilities);

  const created = await ctx.request(methods.agent.session.new, { cwd: opts.cwd, mcpServers: [] });
  const sessionId = created.sessionId;
  for (let i = 0; i < 100 && of(sessionId, "notice").length === 0; i++) await sleep(50); // notices follow the response
  S.notices = of(sessionId, "notice");
  check(S.notices.length >= 1, "a notice for the configuration problem");
  check(of(sessionId, "agent_message_chunk").every((u) => !u.content?.text?.startsWith("⚠")), "no warning line besides the notice");

  const asked = await prompt(ctx, sessionId, "2026: ask me");
  S.elicitation = { stopReason: asked.stopReason, requests: elicitations };
  check(elicitations.length === 1 && elicitations[0].mode === "form" && elicitations[0].sessionId === sessionId,
    "ask_user became one elicitation/create form for the session", elicitations);

  await prompt(ctx, sessionId, "2026: second");
  const usage = of(sessionId, "usage_update");
  S.usage = usage.at(-1);
  check(usage.length >= 2 && usage.every((u) => u.cost && u.cost.currency === "USD"), "usage_update carries a cost", usage);

  const compacted = await prompt(ctx, sessionId, "/compact");
  S.compaction = { stopReason: compacted.stopReason, updates: of(sessionId, "compaction_update"), chunks: of(sessionId, "compaction_summary_chunk").length };
  check(JSON.stringify(S.compaction.updates.map((u) => u.status)) === '["in_progress","completed"]', "compaction in_progress then completed", S.compaction.updates);
  check(S.compaction.chunks >= 1, "the summary streamed as compaction_summary_chunk");

  const forked = await ctx.request("session/fork", { sessionId, cwd: opts.cwd });
  S.fork = { sessionId: forked.sessionId };
  check(forked.sessionId && forked.sessionId !== sessionId, "session/fork gives a new session", forked);
  const inFork = await prompt(ctx, forked.sessionId, "2026: in the fork");
  S.fork.stopReason = inFork.stopReason;
  check(inFork.stopReason === "end_turn", "the fork answers prompts", inFork);

  const loggedOut = await ctx.request(methods.agent.logout, {});
  S.logout = loggedOut;
}

const hardTimer = setTimeout(() => {
  failures.push("driver hard timeout");
  finish().catch(() => {});
}, 120_000);

let finished = false;
async function finish() {
  if (finished) return;
  finished = true;
  clearTimeout(hardTimer);
  const ended = await endAndCheck(tapped, schema, checker, check, (f) => failures.push(f));
  summary.exit = ended.exit;
  summary.schema = ended.schema;
  printSummaryAndExit(summary, tapped);
}

try {
  await app.connectWith(ndJsonStream(tapped.stdin, tapped.stdout), workflow);
} catch (e) {
  const err = e instanceof RequestError || (e && typeof e.code === "number") ? { code: e.code, message: e.message } : { message: String(e?.message ?? e) };
  failures.push(`workflow failed: ${JSON.stringify(err)}${e?.stack ? "\n" + e.stack : ""}`);
}
await finish();
