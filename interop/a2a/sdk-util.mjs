// Helpers for the A2A JS SDK drivers (sdk-client.mjs, two-instances.mjs).
import { Role } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';

/** The SDK's SendMessageRequest for a user text message. */
export function sdkMessage(text, extra = {}) {
  return { message: { messageId: randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    contextId: '', taskId: '', metadata: undefined, extensions: [], referenceTaskIds: [], ...extra } };
}

/** The text of a task's artifacts. */
export function artifactText(task) {
  return (task.artifacts || []).flatMap((a) => a.parts).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

/** Reads events until `until` holds (the stream stays open) or the stream ends. */
export async function collect(gen, until) {
  const events = [];
  for (;;) {
    const { value, done } = await gen.next();
    if (done) return events;
    events.push(value.payload);
    if (until && until(value.payload)) return events;
  }
}
