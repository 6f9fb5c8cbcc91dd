// The official A2A JS SDK (@a2a-js/sdk 1.3, through its v0.3 compatibility layer) as a client of our server, plus
// plain HTTP checks of the 0.3 wire details the SDK's 1.0 model hides (`final`, `kind`, error codes). Every
// response and stream event is validated against the A2A 0.3 JSON schema.
// Usage: node sdk-client.mjs --url http://127.0.0.1:PORT [--token TOKEN]
// The agent's scripted model answers: "HELLO…" with "Hello from the agent", "SLOW…" with "partial " then hangs,
// "WRITE-OUTSIDE…" with a write_file call outside the workspace (a permission question), then "done";
// "ASK-USER…" with an ask_user call ("Which colour?"), then "thanks".
// Prints a JSON summary; exits 1 on any failed check.
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { TaskState } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';
import { check, RESPONSE_OF } from './a2a-schema.mjs';
import { artifactText, collect, sdkMessage } from './sdk-util.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((a, v, i, all) => (v.startsWith('--') ? [...a, [v.slice(2), all[i + 1]]] : a), []));
const base = args.url;
const token = args.token;
const failures = [];
const summary = { checks: 0 };
function ok(cond, what) { summary.checks++; if (!cond) failures.push(what); return cond; }
function schema(name, value, what) { const p = check(name, value); ok(p.length === 0, `${what}: ${p.join('; ')}`); }

const authFetch = (url, init = {}) => {
  const headers = new Headers(init.headers || {});
  if (token) headers.set('Authorization', `Bearer ${token}`);
  return fetch(url, { ...init, headers });
};

// ---- plain HTTP: card, 401, errors, SSE wire details
async function rpc(method, params, { auth = true, raw } = {}) {
  const body = raw ?? JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params });
  const res = await (auth ? authFetch : fetch)(base + '/', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  if (res.status !== 200) return { status: res.status };
  const json = await res.json();
  if (RESPONSE_OF[method]) schema(RESPONSE_OF[method], json, `${method} response`);
  else schema('JSONRPCErrorResponse', json, `${method} error response`);
  return { status: 200, json };
}

async function* sse(method, params) {
  const res = await authFetch(base + '/', { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) });
  ok(res.headers.get('content-type')?.startsWith('text/event-stream'), `${method}: content-type ${res.headers.get('content-type')}`);
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of res.body) {
    buf += decoder.decode(chunk, { stream: true });
    let i;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i); buf = buf.slice(i + 2);
      const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
      if (!data) continue;
      const msg = JSON.parse(data);
      schema('SendStreamingMessageResponse', msg, `${method} event`);
      yield msg;
    }
  }
}

function userMessage(text, extra = {}) {
  return { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }], ...extra };
}

async function wire() {
  for (const path of ['/.well-known/agent-card.json', '/.well-known/agent.json']) {
    const res = await fetch(base + path);
    ok(res.status === 200, `GET ${path} without a token: ${res.status}`);
    const card = await res.json();
    schema('AgentCard', card, `card at ${path}`);
    ok(card.url === base + '/', `card url ${card.url}`);
    ok(card.capabilities?.streaming === true && card.capabilities?.pushNotifications === true, 'card capabilities');
    ok(Array.isArray(card.skills) && card.skills.length > 0, 'card skills');
    if (token) ok(card.securitySchemes && Array.isArray(card.security), 'card names its security scheme');
  }
  if (token) {
    const r = await rpc('tasks/get', { id: 'x' }, { auth: false });
    ok(r.status === 401, `no token: HTTP ${r.status}, expected 401`);
    const bad = await fetch(base + '/', { method: 'POST', headers: { Authorization: 'Bearer wrong', 'Content-Type': 'application/json' }, body: '{}' });
    ok(bad.status === 401, `wrong token: HTTP ${bad.status}, expected 401`);
  }
  const errors = {
    unknownTask: (await rpc('tasks/get', { id: 'no-such-task' })).json,
    unknownMethod: (await rpc('tasks/nonsense', {})).json,
    badParams: (await rpc('message/send', { message: { role: 'user' } })).json,
    parse: (await rpc('x', null, { raw: '{not json' })).json,
  };
  ok(errors.unknownTask?.error?.code === -32001, `tasks/get of an unknown task: ${JSON.stringify(errors.unknownTask)}`);
  ok(errors.unknownMethod?.error?.code === -32601, `unknown method: ${JSON.stringify(errors.unknownMethod)}`);
  ok(errors.badParams?.error?.code === -32602, `invalid params: ${JSON.stringify(errors.badParams)}`);
  ok(errors.parse?.error?.code === -32700, `parse error: ${JSON.stringify(errors.parse)}`);
  for (const e of Object.values(errors)) ok(!/Exception|\tat /.test(JSON.stringify(e)), `no stack trace in ${JSON.stringify(e)}`);

  // streaming wire: task first, artifact chunks with append/lastChunk, final on the last status-update only
  const events = [];
  for await (const e of sse('message/stream', { message: userMessage('HELLO over the wire') })) events.push(e.result);
  ok(events[0]?.kind === 'task', `first stream event is the task: ${events[0]?.kind}`);
  const last = events.at(-1);
  ok(last?.kind === 'status-update' && last.final === true && last.status.state === 'completed', `last stream event: ${JSON.stringify(last)}`);
  ok(events.slice(0, -1).every((e) => e.final !== true), 'only the last event is final');
  const chunks = events.filter((e) => e.kind === 'artifact-update');
  ok(chunks.length >= 2 && chunks[0].append === false && chunks.slice(1).every((c) => c.append === true), 'artifact chunks append');
  ok(chunks.at(-1)?.lastChunk === true, 'the last artifact chunk says lastChunk');
  const text = chunks.map((c) => c.artifact.parts.map((p) => p.text).join('')).join('');
  ok(text === 'Hello from the agent', `streamed text: ${JSON.stringify(text)}`);
  const done = (await rpc('tasks/cancel', { id: last.taskId })).json;
  ok(done?.error?.code === -32002, `cancel of a completed task: ${JSON.stringify(done)}`);

  // push notification configs (a webhook on loopback is refused like a web_fetch to it)
  const cfg = { taskId: last.taskId, pushNotificationConfig: { id: 'hook1', url: 'http://93.184.215.14/hook', token: 'tok' } };
  const set = (await rpc('tasks/pushNotificationConfig/set', cfg)).json;
  ok(set?.result?.pushNotificationConfig?.id === 'hook1', `push config set: ${JSON.stringify(set)}`);
  const got = (await rpc('tasks/pushNotificationConfig/get', { id: last.taskId, pushNotificationConfigId: 'hook1' })).json;
  ok(got?.result?.pushNotificationConfig?.url === cfg.pushNotificationConfig.url, `push config get: ${JSON.stringify(got)}`);
  const list = (await rpc('tasks/pushNotificationConfig/list', { id: last.taskId })).json;
  ok(list?.result?.length === 1, `push config list: ${JSON.stringify(list)}`);
  const del = (await rpc('tasks/pushNotificationConfig/delete', { id: last.taskId, pushNotificationConfigId: 'hook1' })).json;
  ok(del && 'result' in del && del.result === null, `push config delete: ${JSON.stringify(del)}`);
  const loop = (await rpc('tasks/pushNotificationConfig/set', { taskId: last.taskId, pushNotificationConfig: { url: 'http://127.0.0.1:9/x' } })).json;
  ok(loop?.error?.code === -32602, `loopback webhook refused: ${JSON.stringify(loop)}`);
}

// ---- the SDK client

async function sdk() {
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl: authFetch, legacyCompat: { enabled: true } })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: authFetch, legacyCompat: { enabled: true } }),
  }));
  const client = await factory.createFromUrl(base);

  // send (blocking): completed, the answer as an artifact
  const sent = await client.sendMessage(sdkMessage('HELLO from the SDK'));
  const task = sent.$case ? sent.value : sent;
  ok(task.status?.state === TaskState.TASK_STATE_COMPLETED, `send: state ${task.status?.state}`);
  ok(artifactText(task) === 'Hello from the agent', `send: answer ${JSON.stringify(artifactText(task))}`);
  summary.contextId = task.contextId;

  // stream
  const streamed = await collect(client.sendMessageStream(sdkMessage('HELLO streamed', { contextId: task.contextId })));
  ok(streamed[0]?.$case === 'task', `stream: first event ${streamed[0]?.$case}`);
  const end = streamed.at(-1);
  ok(end?.$case === 'statusUpdate' && end.value.status.state === TaskState.TASK_STATE_COMPLETED, `stream: last ${JSON.stringify(end)}`);
  ok(end?.value.contextId === task.contextId, 'stream: same context as the first message');

  // get with historyLength
  const got = await client.getTask({ id: task.id, historyLength: 1, tenant: '' });
  ok(got.id === task.id && got.history.length === 1, `getTask: history ${got.history?.length}`);

  // a task that keeps working: resubscribe to it, then cancel it
  const slow = client.sendMessageStream(sdkMessage('SLOW task'));
  const first = await collect(slow, (p) => p.$case === 'artifactUpdate');
  const slowId = first[0].value.id;
  const again = client.resubscribeTask({ id: slowId, tenant: '' });
  const snap = await again.next();
  ok(snap.value?.payload?.$case === 'task' && snap.value.payload.value.id === slowId, 'resubscribe: the task first');
  const canceled = await client.cancelTask({ id: slowId, tenant: '' });
  ok(canceled.status.state === TaskState.TASK_STATE_CANCELED, `cancel: state ${canceled.status.state}`);
  const rest = await collect(again);
  ok(rest.at(-1)?.$case === 'statusUpdate' && rest.at(-1).value.status.state === TaskState.TASK_STATE_CANCELED, 'resubscribed stream ends canceled');
  const slowRest = await collect(slow);
  ok(slowRest.at(-1)?.value?.status?.state === TaskState.TASK_STATE_CANCELED, 'original stream ends canceled');

  // permission question: input-required, a non-answer asks again, "no" refuses, then a new task answered "yes"
  const asked = await collect(client.sendMessageStream(sdkMessage('WRITE-OUTSIDE please', { contextId: task.contextId })));
  const q = asked.at(-1);
  ok(q?.$case === 'statusUpdate' && q.value.status.state === TaskState.TASK_STATE_INPUT_REQUIRED, `input-required: ${JSON.stringify(q?.value?.status?.state)}`);
  const qText = q.value.status.message?.parts?.map((p) => p.content?.$case === 'text' ? p.content.value : '').join('') || '';
  ok(/Permission needed/.test(qText) && /"yes"/.test(qText), `question text: ${qText}`);
  ok(q.value.status.message?.parts?.some((p) => p.content?.$case === 'data' && Array.isArray(p.content.value?.options)), 'question data lists the options');
  const qTask = q.value.taskId;
  const reasked = await client.sendMessage(sdkMessage('maybe', { taskId: qTask, contextId: task.contextId }));
  const re = reasked.$case ? reasked.value : reasked;
  ok(re.status.state === TaskState.TASK_STATE_INPUT_REQUIRED, `a non-answer asks again: ${re.status.state}`);
  const answered = await collect(client.sendMessageStream(sdkMessage(args.answer || 'no', { taskId: qTask, contextId: task.contextId })));
  ok(answered.at(-1)?.value?.status?.state === TaskState.TASK_STATE_COMPLETED, `after the answer: ${JSON.stringify(answered.at(-1)?.value?.status?.state)}`);

  const asked2 = await collect(client.sendMessageStream(sdkMessage('WRITE-OUTSIDE-YES please')));
  const q2 = asked2.at(-1);
  ok(q2?.value?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED, 'second question');
  const yes = await client.sendMessage(sdkMessage('yes', { taskId: q2.value.taskId }));
  const y = yes.$case ? yes.value : yes;
  ok(y.status.state === TaskState.TASK_STATE_COMPLETED, `after yes: ${y.status.state}`);
  // the model's own question (ask_user): input-required with the question; any text answers it
  const askedUser = await collect(client.sendMessageStream(sdkMessage('ASK-USER please')));
  const uq = askedUser.at(-1);
  ok(uq?.value?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED, `ask_user: ${JSON.stringify(uq?.value?.status?.state)}`);
  const uqText = uq?.value?.status?.message?.parts?.map((p) => p.content?.$case === 'text' ? p.content.value : '').join('') || '';
  ok(uqText.includes('Which colour?'), `ask_user question: ${uqText}`);
  const green = await client.sendMessage(sdkMessage('green', { taskId: uq.value.taskId }));
  ok((green.$case ? green.value : green).status.state === TaskState.TASK_STATE_COMPLETED, 'ask_user answered');
  summary.tasks = { send: task.id, slow: slowId, question: qTask, yes: q2.value.taskId, askUser: uq.value.taskId };
}

try {
  await wire();
  await sdk();
} catch (e) {
  failures.push(`threw: ${e?.stack || e}`);
}
summary.failures = failures;
console.log(JSON.stringify(summary));
process.exit(failures.length ? 1 : 0);
