// Validates A2A 0.3 JSON-RPC messages against the protocol's own JSON schema (a2a-v0.3.0.schema.json, draft-07,
// from github.com/a2aproject/A2A tag v0.3.0, Apache-2.0).
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

const schema = JSON.parse(readFileSync(new URL('./a2a-v0.3.0.schema.json', import.meta.url), 'utf8'));
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(schema, 'a2a');

/** The schema definition a response to `method` must match. */
export const RESPONSE_OF = {
  'message/send': 'SendMessageResponse',
  'message/stream': 'SendStreamingMessageResponse',
  'tasks/resubscribe': 'SendStreamingMessageResponse',
  'tasks/get': 'GetTaskResponse',
  'tasks/cancel': 'CancelTaskResponse',
  'tasks/pushNotificationConfig/set': 'SetTaskPushNotificationConfigResponse',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfigResponse',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigResponse',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfigResponse',
};

/** The request definition of each method (what a client sends). */
export const REQUEST_OF = {
  'message/send': 'SendMessageRequest',
  'message/stream': 'SendStreamingMessageRequest',
  'tasks/resubscribe': 'TaskResubscriptionRequest',
  'tasks/get': 'GetTaskRequest',
  'tasks/cancel': 'CancelTaskRequest',
};

/** Returns a list of problems (empty when `value` matches definition `name`). */
export function check(name, value) {
  const validate = ajv.getSchema(`a2a#/definitions/${name}`);
  if (!validate) return [`no schema definition ${name}`];
  if (validate(value)) return [];
  return validate.errors.slice(0, 5).map((e) => `${name}${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
}
