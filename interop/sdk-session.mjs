#!/usr/bin/env node
// Drives a real ACP agent with the official TypeScript SDK (@agentclientprotocol/sdk, client() builder over
// ndJsonStream), the way an editor does, and validates every line the agent writes against the SDK's own
// v1 JSON schema.
//
//   node interop/sdk-session.mjs --cwd /abs/workspace [--timeout-ms 90000] -- /path/to/bin/agent --acp
//
// The agent inherits this process's environment (point it at a model there: OPENAI_BASE_URL, ...). The model
// must answer these prompts (FakeModelServer rules keyed on the last user message):
//   "interop: stream please"   -> a streamed text answer of several chunks
//   "interop: write a file"    -> a write_file tool call that needs permission (then any text once the tool
//                                 result comes back); the client answers allow_once
//   "interop: write refused"   -> the same kind of call; the client answers reject_once (sent only with
//                                 --expect-permission)
//   "interop: write then cancel" -> the same kind of call; the client leaves the question open and cancels
//                                 the turn (only with --expect-permission)
// With --expect-tool-call the agent must announce the call (tool_call ... completed/failed); with
// --expect-permission it must ask first (tool_call pending -> session/request_permission, same toolCallId).
//   "interop: talk for long"   -> a slow, long stream (it is cancelled after its first chunk)
//   "interop: after resume"    -> any text
// Steps: initialize, session/new, streamed answer, tool call with a permission question answered allow_once,
// cancel during a stream, set_mode, set_config_option, session/list, close, session/load (replay checked),
// close, session/resume (no replay) and a prompt, session/close, then stdin EOF and the agent's exit.
//
// Prints one JSON summary on stdout; exits 0 when every check passed and no schema violation was seen, else 1.

import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { client, ndJsonStream, methods, RequestError } from "@agentclientprotocol/sdk";
import { AcpSchema, ConnectionChecker } from "./acp-schema.mjs";
import { endAndCheck, printSummaryAndExit, spawnTapped, withTimeout } from "./tapped-agent.mjs";

export const PROMPTS = {
  stream: "interop: stream please",
  tool: "interop: write a file",
  toolRejected: "interop: write refused",
  toolCancelled: "interop: write then cancel",
  cancel: "interop: talk for long",
  afterResume: "interop: after resume",
};

function parseArgs(argv) {
  const opts = { cwd: process.cwd(), timeoutMs: 90_000, expectToolCall: false, expectPermission: false, agent: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      opts.agent = argv.slice(i + 1);
      break;
    } else if (a === "--cwd") opts.cwd = argv[++i];
    else if (a === "--timeout-ms") opts.timeoutMs = Number(argv[++i]);
    else if (a === "--expect-tool-call") opts.expectToolCall = true;
    else if (a === "--expect-permission") opts.expectPermission = opts.expectToolCall = true;
    else throw new Error(`unknown option ${a}`);
  }
  if (opts.agent.length === 0) {
    throw new Error("usage: sdk-session.mjs --cwd DIR [--timeout-ms N] [--expect-tool-call] [--expect-permission] -- AGENT_CMD [ARGS...]");
  }
  if (!isAbsolute(opts.cwd)) opts.cwd = resolve(opts.cwd);
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
const summary = { ok: false, failures: [], steps: {} };
const failures = summary.failures;
function check(cond, what, detail) {
  if (!cond) failures.push(detail === undefined ? what : `${what}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
  return !!cond;
}

// ------------------------------------------------------------------ the agent process, tapped both ways

const schema = new AcpSchema();
const checker = new ConnectionChecker(schema);
const tapped = spawnTapped(opts.agent, opts.cwd, checker);
const { events } = tapped;
const tappedStdin = tapped.stdin;
const tappedStdout = tapped.stdout;

// ------------------------------------------------------------------ the client app

const updates = []; // every session/update the SDK delivered: {sessionId, update}
const permissionRequests = [];
const fsCalls = [];
let permissionAnswer = "allow_once"; // the option kind the user picks, set per step ("hold": no answer)
const heldQuestion = {};
heldQuestion.promise = new Promise((res) => (heldQuestion.resolve = res));
const app = client({ name: "agent-interop" })
  .onNotification(methods.client.session.update, ({ params }) => {
    updates.push({ sessionId: params.sessionId, update: params.update });
  })
  .onRequest(methods.client.session.requestPermission, async ({ params, signal, requestId }) => {
    permissionRequests.push(params);
    if (permissionAnswer === "hold") {
      // the user does not answer; the turn gets cancelled, and the agent must withdraw this question
      heldQuestion.resolve(requestId);
      await new Promise((res) => (signal.aborted ? res() : signal.addEventListener("abort", res)));
      heldQuestion.aborted = true;
      return { outcome: { outcome: "cancelled" } };
    }
    const chosen = params.options.find((o) => o.kind === permissionAnswer);
    if (!chosen) return { outcome: { outcome: "cancelled" } };
    return { outcome: { outcome: "selected", optionId: chosen.optionId } };
  })
  .onRequest(methods.client.fs.readTextFile, ({ params }) => {
    fsCalls.push({ method: "fs/read_text_file", params });
    return { content: readFileSync(params.path, "utf8") };
  })
  .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
    fsCalls.push({ method: "fs/write_text_file", params: { path: params.path, bytes: params.content.length } });
    mkdirSync(dirname(params.path), { recursive: true });
    writeFileSync(params.path, params.content);
    return {};
  });

function errorOf(e) {
  return e instanceof RequestError || (e && typeof e.code === "number")
    ? { code: e.code, message: e.message }
    : { message: String(e?.message ?? e) };
}

const textOf = (list, kind) =>
  list.filter((u) => u.update.sessionUpdate === kind && u.update.content?.type === "text").map((u) => u.update.content.text);

/** Runs a prompt on an ActiveSession, collecting its updates until the stop message. */
async function runPrompt(session, text, { onUpdate } = {}) {
  const collected = [];
  const started = Date.now();
  const response = session.prompt(text);
  response.catch(() => {});
  for (;;) {
    const m = await withTimeout(session.nextUpdate(), 30_000, `updates of prompt "${text}"`);
    if (m.kind === "stop") return { stopReason: m.stopReason, updates: collected, ms: Date.now() - started };
    collected.push({ sessionId: session.sessionId, update: m.update });
    if (onUpdate) await onUpdate(m.update, collected);
  }
}

/** Updates for `sessionId` the agent wrote after the response to request `id` (late updates). */
function updatesAfterResponse(id, sessionId) {
  const at = events.findIndex((e) => e.dir === "out" && e.msg && !("method" in e.msg) && e.msg.id === id);
  if (at < 0) return null;
  const late = [];
  for (let i = at + 1; i < events.length; i++) {
    const e = events[i];
    if (e.dir === "in" && e.msg?.params?.sessionId === sessionId) break; // the client moved on
    if (e.dir === "out" && e.msg?.method === "session/update" && e.msg.params?.sessionId === sessionId) {
      const kind = e.msg.params.update?.sessionUpdate;
      if (kind !== "available_commands_update" && kind !== "session_info_update") late.push(kind);
    }
  }
  return late;
}

const lastRequestId = (method) => [...events].reverse().find((e) => e.dir === "in" && e.msg?.method === method)?.msg.id;

/** One prompt whose model answer is a tool call; the permission question (if any) gets `answer`. */
async function toolRound(session, prompt, answer) {
  permissionAnswer = answer;
  const permissionsBefore = permissionRequests.length;
  const fsBefore = fsCalls.length;
  const eventsBefore = events.length;
  const turn = await runPrompt(session, prompt);
  const toolUpdates = turn.updates.filter((u) => ["tool_call", "tool_call_update"].includes(u.update.sessionUpdate)).map((u) => u.update);
  const asked = permissionRequests.slice(permissionsBefore);
  const r = {
    stopReason: turn.stopReason,
    answer,
    toolCalls: toolUpdates.map((u) => ({ sessionUpdate: u.sessionUpdate, toolCallId: u.toolCallId, title: u.title, kind: u.kind, status: u.status })),
    permissionRequests: asked.map((p) => ({ toolCallId: p.toolCall?.toolCallId, title: p.toolCall?.title, options: p.options.map((o) => `${o.optionId}:${o.kind}`) })),
    fsCalls: fsCalls.slice(fsBefore),
    text: textOf(turn.updates, "agent_message_chunk").join(""),
    final: null,
  };
  check(turn.stopReason === "end_turn", `tool turn "${prompt}" ends with end_turn`, turn.stopReason);
  const started = toolUpdates.find((u) => u.sessionUpdate === "tool_call");
  if (opts.expectToolCall) check(started, `a tool_call update announces the tool ("${prompt}")`, r.toolCalls);
  if (started) {
    check(started.status === undefined || started.status === "pending", "the tool call starts pending", started.status);
    const finals = toolUpdates.filter((u) => u.toolCallId === started.toolCallId && ["completed", "failed"].includes(u.status));
    check(finals.length === 1, "the tool call reaches completed or failed exactly once", r.toolCalls);
    r.final = finals[0]?.status ?? null;
    if (opts.expectPermission) check(asked.length === 1, `one permission question for "${prompt}"`, r.permissionRequests);
    for (const p of asked) {
      check(p.toolCall?.toolCallId === started.toolCallId, "the permission question names the announced tool call", p.toolCall);
      const kinds = p.options.map((o) => o.kind);
      check(kinds.includes("allow_once") && kinds.includes("reject_once"), "permission options offer allow_once and reject_once", kinds);
    }
    // wire order: tool_call (pending) -> session/request_permission -> tool_call_update
    const wire = events.slice(eventsBefore).filter((e) => e.dir === "out" && e.msg);
    const at = (pred) => wire.findIndex(pred);
    const announced = at((e) => e.msg.method === "session/update" && e.msg.params?.update?.sessionUpdate === "tool_call" && e.msg.params.update.toolCallId === started.toolCallId);
    const question = at((e) => e.msg.method === "session/request_permission");
    const firstUpdate = at((e) => e.msg.method === "session/update" && e.msg.params?.update?.sessionUpdate === "tool_call_update" && e.msg.params.update.toolCallId === started.toolCallId);
    r.wireOrder = { announced, question, firstUpdate };
    if (question >= 0) check(announced >= 0 && announced < question && question < firstUpdate, "tool_call, then the permission question, then tool_call_update", r.wireOrder);
  }
  r.lateUpdates = updatesAfterResponse(lastRequestId("session/prompt"), session.sessionId);
  check(r.lateUpdates?.length === 0, `no update of "${prompt}" after its response`, r.lateUpdates);
  return r;
}

/** A tool call waits on a permission question the user never answers; the client cancels the turn. */
async function cancelDuringQuestion(ctx, session) {
  permissionAnswer = "hold";
  const eventsBefore = events.length;
  const response = session.prompt(PROMPTS.toolCancelled);
  response.catch(() => {});
  const questionId = await withTimeout(heldQuestion.promise, 30_000, "the permission question of the cancel step");
  const cancelledAt = Date.now();
  await ctx.notify(methods.agent.session.cancel, { sessionId: session.sessionId });
  let stop;
  for (;;) {
    const m = await withTimeout(session.nextUpdate(), 30_000, "end of the cancelled tool turn");
    if (m.kind === "stop") {
      stop = m;
      break;
    }
  }
  const wire = events.slice(eventsBefore).filter((e) => e.dir === "out" && e.msg);
  const withdrawn = wire.some((e) => e.msg.method === "$/cancel_request" && e.msg.params?.requestId === questionId);
  const finals = wire
    .filter((e) => e.msg.method === "session/update" && e.msg.params?.update?.sessionUpdate === "tool_call_update" && ["completed", "failed"].includes(e.msg.params.update.status))
    .map((e) => e.msg.params.update.status);
  const r = { stopReason: stop.stopReason, msFromCancelToResponse: Date.now() - cancelledAt, questionId, withdrawn, finals };
  check(stop.stopReason === "cancelled", "cancelling during a permission question answers stopReason cancelled", stop.stopReason);
  check(withdrawn, "the agent withdraws its open permission question with $/cancel_request", r);
  check(finals.length === 1 && finals[0] === "failed", "the tool call waiting for permission ends failed", finals);
  r.lateUpdates = updatesAfterResponse(lastRequestId("session/prompt"), session.sessionId);
  check(r.lateUpdates?.length === 0, "no update after the cancelled tool turn's response", r.lateUpdates);
  permissionAnswer = "allow_once";
  return r;
}

async function workflow(ctx) {
  const S = summary.steps;
  // initialize
  const init = await ctx.request(methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
    clientInfo: { name: "agent-interop", title: "ACP SDK interop driver", version: "1" },
  });
  S.initialize = { protocolVersion: init.protocolVersion, agentInfo: init.agentInfo, agentCapabilities: init.agentCapabilities };
  check(init.protocolVersion === 1, "initialize answers protocolVersion 1", init.protocolVersion);
  const sc = init.agentCapabilities?.sessionCapabilities ?? {};
  check(init.agentCapabilities?.loadSession === true, "loadSession advertised");
  for (const k of ["list", "resume", "close"]) check(sc[k] !== undefined && sc[k] !== null, `sessionCapabilities.${k} advertised`, sc);

  // session/new
  const session = await ctx.buildSession(opts.cwd).start();
  const sessionId = session.sessionId;
  S.newSession = {
    sessionId,
    modes: session.modes?.availableModes?.map((m) => m.id),
    configOptions: session.newSessionResponse.configOptions?.map((o) => o.id),
  };
  check(typeof sessionId === "string" && sessionId.length > 0, "session/new gives a sessionId");

  // a streamed answer
  const stream = await runPrompt(session, PROMPTS.stream);
  const chunks = textOf(stream.updates, "agent_message_chunk");
  S.stream = { stopReason: stream.stopReason, chunks, text: chunks.join(""), kinds: stream.updates.map((u) => u.update.sessionUpdate) };
  check(stream.stopReason === "end_turn", "streamed answer ends with end_turn", stream.stopReason);
  // how many chunks carry the text depends on timing (text queued behind a busy client is coalesced): not checked
  check(chunks.length >= 1, "the answer arrives as agent_message_chunk updates", chunks);
  S.stream.lateUpdates = updatesAfterResponse(lastRequestId("session/prompt"), sessionId);
  check(S.stream.lateUpdates?.length === 0, "no update of the turn after its session/prompt response", S.stream.lateUpdates);

  // a tool call; the permission question is answered allow_once (then, for a second call, reject_once)
  S.tool = await toolRound(session, PROMPTS.tool, "allow_once");
  if (opts.expectPermission) {
    S.toolRejected = await toolRound(session, PROMPTS.toolRejected, "reject_once");
    if (S.toolRejected.final) check(S.toolRejected.final === "failed", "a rejected tool call ends failed", S.toolRejected.toolCalls);
  }
  if (S.tool.final && opts.expectPermission) check(S.tool.final === "completed", "an allowed tool call completes", S.tool.toolCalls);
  if (opts.expectPermission) S.toolCancelled = await cancelDuringQuestion(ctx, session);

  // cancel during a streamed answer
  let cancelledAt = 0;
  const cancel = await runPrompt(session, PROMPTS.cancel, {
    onUpdate: async (u) => {
      if (!cancelledAt && u.sessionUpdate === "agent_message_chunk") {
        cancelledAt = Date.now();
        await ctx.notify(methods.agent.session.cancel, { sessionId });
      }
    },
  });
  S.cancel = {
    stopReason: cancel.stopReason,
    msFromCancelToResponse: cancelledAt ? Date.now() - cancelledAt : null,
    chunks: textOf(cancel.updates, "agent_message_chunk").length,
  };
  check(cancelledAt > 0, "the long answer started streaming before the cancel");
  check(cancel.stopReason === "cancelled", "a cancelled turn answers stopReason cancelled", cancel.stopReason);
  S.cancel.lateUpdates = updatesAfterResponse(lastRequestId("session/prompt"), sessionId);
  check(S.cancel.lateUpdates?.length === 0, "no update after the cancelled turn's response", S.cancel.lateUpdates);

  // settings: mode and config option (responses are schema-checked)
  const modeId = session.modes?.currentModeId;
  if (modeId) {
    await ctx.request(methods.agent.session.setMode, { sessionId, modeId });
    S.setMode = { modeId };
  }
  const modelOption = session.newSessionResponse.configOptions?.find((o) => o.category === "model" || o.id === "model");
  if (modelOption) {
    const r = await ctx.request(methods.agent.session.setConfigOption, { sessionId, configId: modelOption.id, value: modelOption.currentValue });
    S.setConfigOption = { configId: modelOption.id, value: modelOption.currentValue, options: r.configOptions?.length };
    check(Array.isArray(r.configOptions), "set_config_option answers the full configOptions", r);
  }

  // session/list
  const list = await ctx.request(methods.agent.session.list, { cwd: opts.cwd });
  const listed = list.sessions.find((s) => s.sessionId === sessionId);
  S.list = { count: list.sessions.length, entry: listed ?? null, nextCursor: list.nextCursor ?? null };
  check(listed, "session/list shows the session", list.sessions.map((s) => s.sessionId));
  if (listed) check(listed.cwd === opts.cwd, "the listed session has its cwd", listed.cwd);
  const listAll = await ctx.request(methods.agent.session.list, {});
  check(listAll.sessions.some((s) => s.sessionId === sessionId), "session/list without cwd shows the session too");

  // close, then load with replay
  session.dispose();
  await ctx.request(methods.agent.session.close, { sessionId });
  S.close = { ok: true };
  let afterClose = null;
  try {
    await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "closed?" }] });
  } catch (e) {
    afterClose = errorOf(e);
  }
  S.close.promptAfterClose = afterClose;
  check(afterClose !== null, "a prompt to a closed session is an error");

  const before = updates.length;
  const loaded = await ctx.request(methods.agent.session.load, { sessionId, cwd: opts.cwd, mcpServers: [] });
  const loadId = lastRequestId("session/load");
  const replayed = updates.slice(before).filter((u) => u.sessionId === sessionId);
  const loadResponseAt = events.findIndex((e) => e.dir === "out" && e.msg && !("method" in e.msg) && e.msg.id === loadId);
  const replayAfterResponse = events
    .slice(loadResponseAt + 1)
    .filter((e) => e.dir === "out" && e.msg?.method === "session/update" && ["user_message_chunk", "agent_message_chunk", "tool_call", "tool_call_update"].includes(e.msg.params?.update?.sessionUpdate))
    .map((e) => e.msg.params.update.sessionUpdate);
  S.load = {
    configOptions: loaded.configOptions?.map((o) => o.id),
    replayedKinds: replayed.map((u) => u.update.sessionUpdate),
    userText: textOf(replayed, "user_message_chunk"),
    agentText: textOf(replayed, "agent_message_chunk").join(""),
    replayAfterResponse,
  };
  check(S.load.userText.some((t) => t.includes(PROMPTS.stream)), "session/load replays the user's prompt", S.load.userText);
  check(S.load.userText.some((t) => t.includes(PROMPTS.tool)), "session/load replays the tool prompt", S.load.userText);
  check(S.load.agentText.includes(S.stream.text), "session/load replays the agent's answer", { replayed: S.load.agentText, original: S.stream.text });
  check(replayAfterResponse.length === 0, "the whole replay comes before the session/load response", replayAfterResponse);
  if (S.tool.toolCalls.length) check(S.load.replayedKinds.includes("tool_call"), "session/load replays the tool call", S.load.replayedKinds);

  // close, then resume: no replay, and the conversation goes on
  await ctx.request(methods.agent.session.close, { sessionId });
  const beforeResume = updates.length;
  const resumed = await ctx.request(methods.agent.session.resume, { sessionId, cwd: opts.cwd });
  const resumeReplay = updates
    .slice(beforeResume)
    .filter((u) => u.sessionId === sessionId && ["user_message_chunk", "agent_message_chunk", "tool_call"].includes(u.update.sessionUpdate));
  const resumedSession = ctx; // no ActiveSession helper for resume: prompt through the raw request
  const beforeAfter = updates.length;
  const after = await withTimeout(
    resumedSession.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: PROMPTS.afterResume }] }),
    30_000,
    "prompt after resume",
  );
  S.resume = {
    configOptions: resumed.configOptions?.map((o) => o.id),
    replayedMessages: resumeReplay.length,
    stopReason: after.stopReason,
    text: textOf(updates.slice(beforeAfter).filter((u) => u.sessionId === sessionId), "agent_message_chunk").join(""),
  };
  check(resumeReplay.length === 0, "session/resume does not replay history", resumeReplay.map((u) => u.update.sessionUpdate));
  check(after.stopReason === "end_turn", "a prompt after session/resume works", after.stopReason);

  // session/close, and a second close of the same session is refused or idempotent but never a crash
  await ctx.request(methods.agent.session.close, { sessionId });
  S.finalClose = { ok: true };
}

const hardTimer = setTimeout(() => {
  failures.push(`driver hard timeout after ${opts.timeoutMs} ms`);
  finish().catch(() => {});
}, opts.timeoutMs);

let finished = false;
async function finish() {
  if (finished) return;
  finished = true;
  clearTimeout(hardTimer);
  const ended = await endAndCheck(tapped, schema, checker, check, (f) => failures.push(f));
  summary.exit = ended.exit;
  summary.schema = ended.schema;
  // capability-gated traffic: this client advertised fs but not terminal, session.notices or session.compaction
  const gated = events
    .filter((e) => e.dir === "out" && e.msg)
    .filter((e) => (typeof e.msg.method === "string" && e.msg.method.startsWith("terminal/"))
      || ["notice", "compaction_update", "compaction_summary_chunk"].includes(e.msg.params?.update?.sessionUpdate))
    .map((e) => e.msg.method + " " + (e.msg.params?.update?.sessionUpdate ?? ""));
  check(gated.length === 0, "nothing the client did not advertise (terminal/*, notice, compaction updates)", gated);
  const apiKey = process.env.OPENAI_API_KEY;
  if (apiKey && apiKey.length >= 4) check(!tapped.stderr().includes(apiKey), "the API key never appears on the agent's stderr");
  printSummaryAndExit(summary, tapped);
}

try {
  const stream = ndJsonStream(tappedStdin, tappedStdout);
  await app.connectWith(stream, workflow);
} catch (e) {
  failures.push(`workflow failed: ${JSON.stringify(errorOf(e))}${e?.stack ? "\n" + e.stack : ""}`);
}
await finish();
