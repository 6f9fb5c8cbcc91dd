// The official A2A JS SDK (@a2a-js/sdk 1.3, v0.3 layer) switching between two `agent a2a serve` instances on one
// PostgreSQL database, as a client behind a load balancer would: a task started on A is fetched, followed
// (resubscribe), continued and cancelled through B, and A continues what B answered.
// Usage: node two-instances.mjs --a http://127.0.0.1:PORT_A --b http://127.0.0.1:PORT_B
// The scripted model answers "HELLO…" with "Hello from the agent", "DRIP…" with "drip-1 ", "drip-2 ", "drip-3"
// a second apart, "SLOW…" with "partial " then hangs.
// Prints a JSON summary; exits 1 on any failed check.
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { TaskState } from '@a2a-js/sdk';
import { artifactText, collect, sdkMessage as message } from './sdk-util.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((a, v, i, all) => (v.startsWith('--') ? [...a, [v.slice(2), all[i + 1]]] : a), []));
const failures = [];
const summary = { checks: 0 };
function ok(cond, what) { summary.checks++; if (!cond) failures.push(what); return cond; }

function chunkText(events) {
  return events.filter((e) => e.$case === 'artifactUpdate').flatMap((e) => e.value.artifact.parts)
    .map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

async function client(url) {
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true } })],
    cardResolver: new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }),
  }));
  return factory.createFromUrl(url);
}

const unwrap = (r) => (r.$case ? r.value : r);

async function run() {
  const a = await client(args.a);
  const b = await client(args.b);

  // started on A, fetched on B
  const first = unwrap(await a.sendMessage(message('HELLO one, on A')));
  ok(first.status?.state === TaskState.TASK_STATE_COMPLETED, `send on A: ${first.status?.state}`);
  const context = first.contextId;
  summary.contextId = context;
  const got = await b.getTask({ id: first.id, tenant: '' });
  ok(got.id === first.id && got.status.state === TaskState.TASK_STATE_COMPLETED, `get on B: ${got.status?.state}`);
  ok(artifactText(got) === 'Hello from the agent', `get on B: the answer ${JSON.stringify(artifactText(got))}`);

  // continued on B
  const second = unwrap(await b.sendMessage(message('HELLO two, on B', { contextId: context })));
  ok(second.status?.state === TaskState.TASK_STATE_COMPLETED && second.contextId === context, `continue on B: ${second.status?.state}`);

  // a task streaming on A, followed from B: B sees A's later chunks and the end
  const drip = a.sendMessageStream(message('DRIP three, on A', { contextId: context }));
  const dripStart = await collect(drip, (p) => p.$case === 'artifactUpdate');
  const dripId = dripStart.find((e) => e.$case === 'task')?.value.id ?? dripStart.at(-1).value.taskId;
  const followed = await collect(b.resubscribeTask({ id: dripId, tenant: '' }));
  ok(followed[0]?.$case === 'task' && followed[0].value.id === dripId, 'resubscribe on B: the task first');
  const seen = artifactText(followed[0].value) + chunkText(followed.slice(1));
  ok(seen === 'drip-1 drip-2 drip-3', `resubscribe on B: the whole answer, A's later chunks included: ${JSON.stringify(seen)}`);
  ok(followed.slice(1).some((e) => e.$case === 'artifactUpdate'), 'resubscribe on B: live chunks from A');
  const last = followed.at(-1);
  ok(last?.$case === 'statusUpdate' && last.value.status.state === TaskState.TASK_STATE_COMPLETED, `resubscribe on B ends completed: ${JSON.stringify(last?.value?.status?.state)}`);
  await collect(drip);

  // a task hanging on A, cancelled through B
  const slow = a.sendMessageStream(message('SLOW four, on A', { contextId: context }));
  const slowStart = await collect(slow, (p) => p.$case === 'artifactUpdate');
  const slowId = slowStart.at(-1).value.taskId;
  const canceled = await b.cancelTask({ id: slowId, tenant: '' });
  ok(canceled.status.state === TaskState.TASK_STATE_CANCELED, `cancel on B: ${canceled.status.state}`);
  const slowRest = await collect(slow);
  ok(slowRest.at(-1)?.value?.status?.state === TaskState.TASK_STATE_CANCELED, 'the stream on A ends canceled');
  const afterCancel = await a.getTask({ id: slowId, tenant: '' });
  ok(afterCancel.status.state === TaskState.TASK_STATE_CANCELED, `get on A after the cancel: ${afterCancel.status.state}`);

  // A continues after B's turns
  const fifth = unwrap(await a.sendMessage(message('HELLO five, on A', { contextId: context })));
  ok(fifth.status?.state === TaskState.TASK_STATE_COMPLETED, `continue on A: ${fifth.status?.state}`);
  summary.tasks = { first: first.id, second: second.id, drip: dripId, slow: slowId, fifth: fifth.id };
}

try {
  await run();
} catch (e) {
  failures.push(`threw: ${e?.stack || e}`);
}
summary.failures = failures;
console.log(JSON.stringify(summary));
process.exit(failures.length ? 1 : 0);
