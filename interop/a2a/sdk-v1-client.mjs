// The official A2A JS SDK (@a2a-js/sdk 1.3) in its native A2A 1.0 mode (no v0.3 compatibility layer) as a client of
// our server over one 1.0 binding, chosen from the card's supportedInterfaces: JSON-RPC or HTTP+JSON (REST). Then
// plain HTTP checks of what the SDK hides on that binding (HTTP status and ErrorInfo of errors, the version rule).
// Usage: node sdk-v1-client.mjs --url http://127.0.0.1:PORT --binding JSONRPC|HTTP+JSON [--token TOKEN] [--task03 ID]
// The agent's scripted model answers: "HELLO…" with "Hello from the agent", "SLOW…" with "partial " then hangs,
// "WRITE-OUTSIDE please" with a write_file call outside the workspace (a permission question), then "done".
// --task03 names a task a 0.3 client started that waits on a permission question: it is read and answered "yes".
// Prints a JSON summary ({checks, failures, binding, tasks}); exits 1 on any failed check.
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { TaskState } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';
import { artifactText, collect, sdkMessage } from './sdk-util.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((a, v, i, all) => (v.startsWith('--') ? [...a, [v.slice(2), all[i + 1]]] : a), []));
const base = args.url;
const token = args.token;
const binding = args.binding;
const failures = [];
const summary = { checks: 0, binding };
function ok(cond, what) { summary.checks++; if (!cond) failures.push(what); return cond; }

const seenVersions = new Set();
const authFetch = (url, init = {}) => {
  const headers = new Headers(init.headers || {});
  if (token) headers.set('Authorization', `Bearer ${token}`);
  seenVersions.add(headers.get('A2A-Version'));
  return fetch(url, { ...init, headers });
};
const taskOf = (r) => (r?.$case ? r.value : r);
// the SDK's name of an error (in a JSON-RPC stream it wraps it: the typed error is the cause)
const errorName = async (promise) => { try { await promise; return 'no error'; } catch (e) { return e?.cause?.name || e?.name || String(e); } };

async function sdk() {
  const card = await (await fetch(base + '/.well-known/agent-card.json')).json();
  const iface = (card.supportedInterfaces || []).find((i) => i.protocolBinding === binding && i.protocolVersion === '1.0');
  // JSON-RPC at the server's root, the HTTP+JSON routes under the same URL named without its last slash
  const expectedUrl = binding === 'HTTP+JSON' ? base : base + '/';
  ok(iface && iface.url === expectedUrl, `the card names a 1.0 ${binding} interface: ${JSON.stringify(card.supportedInterfaces)}`);
  ok(card.capabilities?.extendedAgentCard === Boolean(token), `capabilities.extendedAgentCard: ${card.capabilities?.extendedAgentCard}`);

  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl: authFetch }), new RestTransportFactory({ fetchImpl: authFetch })],
    preferredTransports: [binding],
  }));
  const client = await factory.createFromAgentCard(card);
  ok(client.transport?.protocolName === binding, `the SDK chose ${client.transport?.protocolName}`);

  // SendMessage (blocking): completed, the answer as an artifact
  const task = taskOf(await client.sendMessage(sdkMessage('HELLO from the 1.0 SDK')));
  ok(task.status?.state === TaskState.TASK_STATE_COMPLETED, `send: state ${task.status?.state}`);
  ok(artifactText(task) === 'Hello from the agent', `send: answer ${JSON.stringify(artifactText(task))}`);
  ok(seenVersions.has('1.0') && !seenVersions.has('0.3'), `the SDK sent A2A-Version 1.0: ${[...seenVersions]}`);

  // SendStreamingMessage: the task first, wrapped updates, completed last, same context
  const streamed = await collect(client.sendMessageStream(sdkMessage('HELLO streamed', { contextId: task.contextId })));
  ok(streamed[0]?.$case === 'task', `stream: first event ${streamed[0]?.$case}`);
  const end = streamed.at(-1);
  ok(end?.$case === 'statusUpdate' && end.value.status.state === TaskState.TASK_STATE_COMPLETED, `stream: last ${JSON.stringify(end)}`);
  ok(end?.value.contextId === task.contextId, 'stream: same context as the first message');
  const text = streamed.filter((e) => e.$case === 'artifactUpdate')
    .map((e) => e.value.artifact.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('')).join('');
  ok(text === 'Hello from the agent', `stream: text ${JSON.stringify(text)}`);

  // GetTask with historyLength; ListTasks by context, by status, paged
  const got = await client.getTask({ id: task.id, historyLength: 1, tenant: '' });
  ok(got.id === task.id && got.history.length === 1, `getTask: history ${got.history?.length}`);
  const inCtx = await client.listTasks({ tenant: '', contextId: task.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', includeArtifacts: true });
  ok(inCtx.tasks.length === 2 && inCtx.totalSize === 2, `listTasks by context: ${inCtx.tasks.length}/${inCtx.totalSize}`);
  ok(inCtx.tasks.every((t) => artifactText(t) === 'Hello from the agent'), 'listTasks includeArtifacts');
  const page1 = await client.listTasks({ tenant: '', contextId: task.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 1, pageToken: '' });
  const page2 = await client.listTasks({ tenant: '', contextId: task.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 1, pageToken: page1.nextPageToken });
  ok(page1.tasks.length === 1 && page1.nextPageToken !== '' && page2.tasks.length === 1 && page2.nextPageToken === ''
    && page1.tasks[0].id !== page2.tasks[0].id, `listTasks paged: ${JSON.stringify([page1.nextPageToken, page2.nextPageToken])}`);
  const completed = await client.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_COMPLETED, pageToken: '' });
  ok(completed.tasks.length === 2, `listTasks by status: ${completed.tasks.length}`);

  // a task that keeps working: subscribe to it, then cancel it
  const slow = client.sendMessageStream(sdkMessage('SLOW task'));
  const first = await collect(slow, (p) => p.$case === 'artifactUpdate');
  const slowId = first[0].value.id;
  const again = client.resubscribeTask({ id: slowId, tenant: '' });
  const snap = await again.next();
  ok(snap.value?.payload?.$case === 'task' && snap.value.payload.value.id === slowId, `subscribe: the task first: ${JSON.stringify(snap.value)}`);
  const canceled = await client.cancelTask({ id: slowId, tenant: '' });
  ok(canceled.status.state === TaskState.TASK_STATE_CANCELED, `cancel: state ${canceled.status.state}`);
  const rest = await collect(again);
  ok(rest.at(-1)?.$case === 'statusUpdate' && rest.at(-1).value.status.state === TaskState.TASK_STATE_CANCELED, 'subscribed stream ends canceled');
  ok((await collect(slow)).at(-1)?.value?.status?.state === TaskState.TASK_STATE_CANCELED, 'original stream ends canceled');

  // errors as the SDK names them
  ok(await errorName(client.getTask({ id: 'no-such-task', tenant: '' })) === 'TaskNotFoundError', 'getTask of an unknown task');
  ok(await errorName(client.cancelTask({ id: task.id, tenant: '' })) === 'TaskNotCancelableError', 'cancel of a completed task');
  const subDone = await errorName(collect(client.resubscribeTask({ id: task.id, tenant: '' })));
  ok(subDone === 'UnsupportedOperationError', `subscribe to a completed task: ${subDone}`);

  // push notification configs in 1.0's shape (a webhook on loopback is refused like a web_fetch to it)
  const hook = { tenant: '', id: 'hook1', taskId: task.id, url: 'http://93.184.215.14/hook', token: 'tok', authentication: undefined };
  const created = await client.createTaskPushNotificationConfig(hook);
  ok(created.id === 'hook1' && created.taskId === task.id && created.url === hook.url && created.token === 'tok', `push create: ${JSON.stringify(created)}`);
  const gotHook = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook1' });
  ok(gotHook.url === hook.url, `push get: ${JSON.stringify(gotHook)}`);
  const listed = await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
  ok(listed.configs.length === 1 && listed.configs[0].id === 'hook1', `push list: ${JSON.stringify(listed)}`);
  await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook1' });
  const after = await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
  ok(after.configs.length === 0, `push delete: ${JSON.stringify(after)}`);
  const loop = await errorName(client.createTaskPushNotificationConfig({ ...hook, id: 'loop', url: 'http://127.0.0.1:9/x' }));
  ok(loop !== 'no error', `a loopback webhook is refused: ${loop}`);

  // the extended card: with a token, for the caller that sent it
  if (token) {
    const extended = await client.getAgentCard();
    ok(extended.name === card.name && extended.supportedInterfaces.length === card.supportedInterfaces.length, `extended card: ${extended.name}`);
  }

  // the permission question: input-required, "no" refuses, the task completes
  const asked = await collect(client.sendMessageStream(sdkMessage('WRITE-OUTSIDE please')));
  const q = asked.at(-1);
  ok(q?.$case === 'statusUpdate' && q.value.status.state === TaskState.TASK_STATE_INPUT_REQUIRED, `input-required: ${q?.value?.status?.state}`);
  const answered = taskOf(await client.sendMessage(sdkMessage('no', { taskId: q.value.taskId, contextId: q.value.contextId })));
  ok(answered.status.state === TaskState.TASK_STATE_COMPLETED, `after the answer: ${answered.status.state}`);
  summary.tasks = { send: task.id, slow: slowId, question: q.value.taskId };

  // a task a 0.3 client started (it asks to write a file): read and answered over 1.0
  if (args.task03) {
    const old = await client.getTask({ id: args.task03, tenant: '' });
    ok(old.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED, `the 0.3 task over 1.0: ${old.status?.state}`);
    const yes = taskOf(await client.sendMessage(sdkMessage('yes', { taskId: args.task03, contextId: old.contextId })));
    ok(yes.status.state === TaskState.TASK_STATE_COMPLETED, `the 0.3 task answered over 1.0: ${yes.status.state}`);
  }
}

// ---- plain HTTP on the binding: what the SDK does not show
async function wire() {
  const headers = (extra = {}) => ({ 'Content-Type': 'application/a2a+json', ...(token ? { Authorization: `Bearer ${token}` } : {}), ...extra });
  if (binding === 'HTTP+JSON') {
    const missing = await fetch(base + '/tasks/no-such-task', { headers: headers({ 'A2A-Version': '1.0' }) });
    const body = await missing.json();
    ok(missing.status === 404 && body.error?.code === 404 && body.error?.status === 'NOT_FOUND', `GET unknown task: ${missing.status} ${JSON.stringify(body)}`);
    ok(body.error?.details?.some((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo' && d.reason === 'TASK_NOT_FOUND'
      && d.domain === 'a2a-protocol.org'), `ErrorInfo: ${JSON.stringify(body)}`);
    const noVersion = await fetch(base + '/tasks', { headers: headers() });
    const nv = await noVersion.json();
    ok(noVersion.status === 400 && nv.error?.details?.[0]?.reason === 'VERSION_NOT_SUPPORTED', `no A2A-Version: ${noVersion.status} ${JSON.stringify(nv)}`);
    const byQuery = await fetch(base + '/tasks?A2A-Version=1.0&pageSize=0', { headers: headers() });
    ok(byQuery.status === 400 && (await byQuery.json()).error?.status === 'INVALID_ARGUMENT', `pageSize=0: ${byQuery.status}`);
    const badSend = await fetch(base + '/message:send', { method: 'POST', headers: headers({ 'A2A-Version': '1.0' }), body: '{}' });
    ok(badSend.status === 400, `send without a message: ${badSend.status}`);
    const badStream = await fetch(base + '/message:stream', { method: 'POST', headers: headers({ 'A2A-Version': '1.0' }), body: '{}' });
    ok(badStream.status === 400 && !badStream.headers.get('content-type')?.startsWith('text/event-stream'),
      `a stream refused before it began is an HTTP error: ${badStream.status} ${badStream.headers.get('content-type')}`);
    const form = await fetch(base + '/message:send', { method: 'POST', headers: headers({ 'A2A-Version': '1.0', 'Content-Type': 'text/plain' }), body: '{}' });
    ok(form.status === 415, `text/plain body: ${form.status}`);
    const wrongVerb = await fetch(base + '/message:send', { headers: headers({ 'A2A-Version': '1.0' }) });
    ok(wrongVerb.status === 405, `GET /message:send: ${wrongVerb.status}`);
    if (token) {
      const anon = await fetch(base + '/tasks?A2A-Version=1.0');
      ok(anon.status === 401, `GET /tasks without the token: ${anon.status}`);
      const anonCard = await fetch(base + '/extendedAgentCard?A2A-Version=1.0');
      ok(anonCard.status === 401, `GET /extendedAgentCard without the token: ${anonCard.status}`);
    } else {
      const none = await fetch(base + '/extendedAgentCard', { headers: headers({ 'A2A-Version': '1.0' }) });
      const nb = await none.json();
      ok(none.status === 400 && nb.error?.details?.[0]?.reason === 'UNSUPPORTED_OPERATION', `no extended card without a token: ${JSON.stringify(nb)}`);
    }
  } else {
    const rpc = async (method, params) => (await fetch(base + '/', { method: 'POST', headers: headers({ 'A2A-Version': '1.0' }),
      body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }) })).json();
    const del = await rpc('DeleteTaskPushNotificationConfig', { taskId: 'no-such-task', id: 'x' });
    ok(del.error?.code === -32001, `delete a config of an unknown task: ${JSON.stringify(del)}`);
    const ext = await rpc('GetExtendedAgentCard', {});
    if (token) ok(ext.result?.name === 'agent', `GetExtendedAgentCard: ${JSON.stringify(ext).slice(0, 200)}`);
    else ok(ext.error?.code === -32004, `GetExtendedAgentCard without a token: ${JSON.stringify(ext)}`);
  }
}

try {
  await sdk();
  await wire();
} catch (e) {
  failures.push(`threw: ${e?.stack || e}`);
}
summary.failures = failures;
console.log(JSON.stringify(summary));
process.exit(failures.length ? 1 : 0);
