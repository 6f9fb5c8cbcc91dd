// A remote agent for our A2A client: the official A2A JS SDK server (@a2a-js/sdk 1.3, DefaultRequestHandler over
// express). By default (--wire 0.3) its v0.3 compatibility layer is on and it serves a v0.3 agent card; every JSON-RPC
// request it receives is validated against the A2A 0.3 JSON schema first. With --wire jsonrpc or --wire rest it is a
// native A2A 1.0 agent (no 0.3 layer: a request without A2A-Version: 1.0 is refused) whose card offers JSON-RPC 1.0
// and HTTP+JSON 1.0 (under /rest), or HTTP+JSON 1.0 only; it then records each request's method (or REST path) and
// A2A-Version in `versions`, and the request as sent in `received` (checked against the 1.0 schema by the test). Usage: node remote-agent.mjs [--token TOKEN] [--wire 0.3|jsonrpc|rest]; prints
// "listening on PORT". GET /_test/report answers {requests, violations, canceled, versions, …}.
// Behaviour by message text: "ASK…" asks a question (input-required) and completes with the answer it gets;
// "SLOW…" works until cancelled; anything else is echoed back as two streamed artifact chunks.
import express from 'express';
import { Role, TaskState } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { randomUUID } from 'node:crypto';
import { check, REQUEST_OF } from './a2a-schema.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((a, v, i, all) => (v.startsWith('--') ? [...a, [v.slice(2), all[i + 1]]] : a), []));
const wire = args.wire || '0.3';
const report = { requests: [], contexts: [], taskIds: [], violations: [], canceled: [], authFailures: 0, versions: [], received: [] };
const slow = new Map();

const text = (msg) => (msg?.parts || []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
const textPart = (value) => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' });
const agentMessage = (taskId, contextId, value) => ({ messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT,
  parts: [textPart(value)], metadata: undefined, extensions: [], referenceTaskIds: [] });
const status = (state, message) => ({ state, message, timestamp: new Date().toISOString() });
const statusUpdate = (ctx, state, message) => AgentEvent.statusUpdate({ taskId: ctx.taskId, contextId: ctx.contextId,
  status: status(state, message ? agentMessage(ctx.taskId, ctx.contextId, message) : undefined), metadata: undefined });
const artifact = (ctx, value, append, lastChunk) => AgentEvent.artifactUpdate({ taskId: ctx.taskId, contextId: ctx.contextId,
  artifact: { artifactId: 'answer', name: 'answer', description: '', parts: [textPart(value)], metadata: undefined, extensions: [] },
  append, lastChunk, metadata: undefined });

const executor = {
  async execute(ctx, bus) {
    const said = text(ctx.userMessage);
    const history = [...(ctx.task?.history || []), ctx.userMessage];
    bus.publish(AgentEvent.task(ctx.task ?? { id: ctx.taskId, contextId: ctx.contextId, status: status(TaskState.TASK_STATE_SUBMITTED),
      artifacts: [], history, metadata: undefined }));
    if (ctx.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      bus.publish(artifact(ctx, `answered: ${said}`, false, true));
      bus.publish(statusUpdate(ctx, TaskState.TASK_STATE_COMPLETED));
    } else if (said.includes('ASK')) {
      bus.publish(statusUpdate(ctx, TaskState.TASK_STATE_INPUT_REQUIRED, 'Which colour do you want?'));
    } else if (said.includes('SLOW')) {
      bus.publish(statusUpdate(ctx, TaskState.TASK_STATE_WORKING, 'thinking'));
      bus.publish(artifact(ctx, 'working on it', false, false));
      await new Promise((resolve) => slow.set(ctx.taskId, resolve));
      return;
    } else {
      bus.publish(artifact(ctx, 'echo: ', false, false));
      bus.publish(artifact(ctx, said, true, true));
      bus.publish(statusUpdate(ctx, TaskState.TASK_STATE_COMPLETED));
    }
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    report.canceled.push(taskId);
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: '', status: status(TaskState.TASK_STATE_CANCELED), metadata: undefined }));
    bus.finished();
    slow.get(taskId)?.();
  },
};

const app = express();
const server = app.listen(0, '127.0.0.1', () => {
  const port = server.address().port;
  const url = `http://127.0.0.1:${port}/`;
  const v1card = { name: 'remote', description: 'A test agent that echoes, asks and waits', version: '1.0.0',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' }],
    capabilities: { streaming: true, pushNotifications: false, extensions: [] }, defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'], skills: [{ id: 'echo', name: 'Echo', description: 'Echoes what it is told', tags: ['echo'], examples: [],
      inputModes: [], outputModes: [], securityRequirements: [] }], securitySchemes: {}, securityRequirements: [], signatures: [] };
  const card03 = { protocolVersion: '0.3.0', name: 'remote', description: 'A test agent that echoes, asks and waits', url,
    preferredTransport: 'JSONRPC', version: '1.0.0', capabilities: { streaming: true }, defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'], skills: [{ id: 'echo', name: 'Echo', description: 'Echoes what it is told', tags: ['echo'] }] };
  if (wire !== '0.3') {
    // a native 1.0 agent: its card offers 1.0 only (JSON-RPC and HTTP+JSON, or HTTP+JSON alone)
    const rest = { url: `${url}rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' };
    v1card.supportedInterfaces = wire === 'rest' ? [rest] : [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }, rest];
    const handler = new DefaultRequestHandler(v1card, new InMemoryTaskStore(), executor);
    app.get('/.well-known/agent-card.json', (req, res) => res.json(v1card));
    app.get('/_test/report', (req, res) => res.json(report));
    app.use(express.json({ type: ['application/json', 'application/a2a+json'] }));
    app.use((req, res, next) => {
      if (args.token && req.get('authorization') !== `Bearer ${args.token}`) { report.authFailures++; res.status(401).end(); return; }
      report.versions.push({ what: req.body?.method ?? `${req.method} ${req.path}`, version: req.get('A2A-Version') ?? null });
      report.received.push({ method: req.method, path: req.path, body: req.body ?? null });
      const message = req.body?.params?.message ?? req.body?.message;
      report.contexts.push(message?.contextId ?? null);
      report.taskIds.push(message?.taskId ?? null);
      next();
    });
    app.use('/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
    app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
    console.log(`listening on ${port}`);
    return;
  }
  const handler = new DefaultRequestHandler(v1card, new InMemoryTaskStore(), executor);
  app.get('/.well-known/agent-card.json', (req, res) => res.json(card03));
  app.get('/_test/report', (req, res) => res.json(report));
  app.use(express.json());
  app.post('/', (req, res, next) => {
    if (args.token && req.get('authorization') !== `Bearer ${args.token}`) { report.authFailures++; res.status(401).end(); return; }
    const method = req.body?.method;
    report.requests.push(method);
    report.contexts.push(req.body?.params?.message?.contextId ?? null);
    report.taskIds.push(req.body?.params?.message?.taskId ?? null);
    const def = REQUEST_OF[method];
    const problems = def ? check(def, req.body) : [`unexpected method ${method}`];
    if (problems.length) report.violations.push({ method, problems, body: req.body });
    next();
  }, jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  console.log(`listening on ${port}`);
});
