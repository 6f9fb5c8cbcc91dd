// Validates what an ACP agent writes against the official ACP v1 JSON schema shipped in the
// @agentclientprotocol/sdk npm package (draft 2020-12, so Ajv's 2020 build).
//
// Each agent -> client message is matched to its schema type:
//   - a response by the method of the client request it answers (InitializeResponse, PromptResponse, ...),
//     an error response by `Error`;
//   - a notification by its method (session/update -> SessionNotification, $/cancel_request ->
//     CancelRequestNotification, `_...` -> ExtNotification);
//   - an agent -> client request by its method (session/request_permission -> RequestPermissionRequest, ...).
// The method <-> type table is read from the schema's own `x-method` / `x-side` annotations.
// The JSON-RPC envelope is checked too (jsonrpc "2.0", id types, exactly one of result/error).

import { createRequire } from "node:module";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const require = createRequire(import.meta.url);

/** The installed SDK package's directory (its exports map hides package.json, so walk up from its entry). */
export function sdkDirectory() {
  let dir = dirname(require.resolve("@agentclientprotocol/sdk"));
  while (dir !== dirname(dir)) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, "utf8")).name === "@agentclientprotocol/sdk") return dir;
    dir = dirname(dir);
  }
  throw new Error("cannot find the @agentclientprotocol/sdk package directory");
}

/** Absolute path of the stable v1 schema inside the installed SDK package. */
export function schemaPath() {
  return join(sdkDirectory(), "schema", "v1", "schema.json");
}

/** The v1 schema with the unstable methods too (session/fork, ...): a superset of the stable one. */
export function unstableSchemaPath() {
  return join(sdkDirectory(), "schema", "v1", "schema.unstable.json");
}

function unsignedFormat(bits) {
  const max = bits >= 53 ? Number.MAX_SAFE_INTEGER * 2 ** (bits - 53) : 2 ** bits - 1;
  return { type: "number", validate: (n) => Number.isInteger(n) && n >= 0 && n <= max };
}

/**
 * Agentao's own client->agent methods outside ACP v1 (docs/conformance.md rows 28a, 28b), with the JSON Schema of
 * the agent's result, so their answers are checked like ACP's.
 */
const AGENTAO_METHODS = {
  "session/set_model": ["AgentaoSetModelResponse", { type: "object" }],
  "session/list_models": ["AgentaoListModelsResponse", {
    type: "object",
    required: ["currentModelId", "availableModels"],
    properties: {
      currentModelId: { type: ["string", "null"] },
      availableModels: {
        type: "array",
        items: {
          type: "object",
          required: ["modelId", "name"],
          properties: { modelId: { type: "string" }, name: { type: "string" }, description: { type: "string" } },
        },
      },
    },
  }],
};

export class AcpSchema {
  constructor(path = schemaPath()) {
    this.path = path;
    this.schema = JSON.parse(readFileSync(path, "utf8"));
    this.version = JSON.parse(readFileSync(join(sdkDirectory(), "package.json"), "utf8")).version;
    this.ajv = new Ajv2020({ allErrors: true, strict: false, discriminator: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addFormat("uint16", unsignedFormat(16));
    this.ajv.addFormat("uint32", unsignedFormat(32));
    this.ajv.addFormat("uint64", unsignedFormat(64));
    this.ajv.addSchema(this.schema, "acp");
    this.validators = new Map();
    // method tables from the schema's annotations
    this.agentResponseType = new Map(); // client->agent request method -> agent's response type
    this.agentRequestType = new Map(); // agent->client request method -> request type
    this.agentNotificationType = new Map(); // agent->client notification method -> type
    this.clientRequestType = new Map();
    for (const [name, def] of Object.entries(this.schema.$defs)) {
      const method = def["x-method"];
      const side = def["x-side"];
      if (!method) continue;
      if (side === "agent" && name.endsWith("Response")) this.agentResponseType.set(method, name);
      else if (side === "agent" && name.endsWith("Request")) this.clientRequestType.set(method, name);
      else if (side === "client" && name.endsWith("Request")) this.agentRequestType.set(method, name);
      else if ((side === "client" || side === "protocol") && name.endsWith("Notification"))
        this.agentNotificationType.set(method, name);
    }
    for (const [method, [name, schema]] of Object.entries(AGENTAO_METHODS)) {
      this.validators.set(name, this.ajv.compile(schema));
      this.agentResponseType.set(method, name);
    }
  }

  /** The compiled validator of one `$defs` type. */
  validator(typeName) {
    let v = this.validators.get(typeName);
    if (!v) {
      if (!this.schema.$defs[typeName]) throw new Error(`no type ${typeName} in ${this.path}`);
      v = this.ajv.compile({ $ref: `acp#/$defs/${typeName}` });
      this.validators.set(typeName, v);
    }
    return v;
  }

  /** Errors (strings) of `value` against `typeName`; empty when valid. */
  check(typeName, value) {
    const v = this.validator(typeName);
    if (v(value)) return [];
    return summarize(v.errors);
  }

  /** Which client->agent methods the schema knows (for classifying transcripts). */
  isClientMethod(method) {
    return this.clientRequestType.has(method) || method === "session/cancel" || Object.hasOwn(AGENTAO_METHODS, method);
  }

  /**
   * Validates one message written by the agent. `requestMethodOf(id)` names the client request a response
   * answers (or undefined). Returns {type, errors}.
   */
  validateAgentMessage(msg, requestMethodOf) {
    const errors = [];
    if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
      return { type: "(not an object)", errors: ["a message must be a JSON object"] };
    }
    if (msg.jsonrpc !== "2.0") errors.push(`jsonrpc must be "2.0", got ${JSON.stringify(msg.jsonrpc)}`);
    const hasId = Object.prototype.hasOwnProperty.call(msg, "id");
    if (hasId) errors.push(...this.check("RequestId", msg.id).map((e) => `id: ${e}`));
    let type;
    if (typeof msg.method === "string") {
      if ("result" in msg || "error" in msg) errors.push("a request/notification must not carry result or error");
      if (hasId) {
        if (msg.id === null) errors.push("a request from the agent must not have a null id");
        type = this.agentRequestType.get(msg.method) ?? (msg.method.startsWith("_") ? "ExtRequest" : null);
        if (!type) errors.push(`agent sent a request with a method clients do not serve: ${msg.method}`);
      } else {
        type = this.agentNotificationType.get(msg.method) ?? (msg.method.startsWith("_") ? "ExtNotification" : null);
        if (!type) errors.push(`agent sent a notification with a method clients do not take: ${msg.method}`);
      }
      if (type) {
        if (type === "ExtRequest" || type === "ExtNotification") {
          // extension payloads are free-form; only the envelope is checked
        } else if (msg.params === undefined) {
          errors.push(`${msg.method}: params missing`);
        } else {
          errors.push(...this.check(type, msg.params).map((e) => `params: ${e}`));
        }
      }
    } else if ("method" in msg) {
      errors.push("method must be a string");
    } else {
      if (!hasId) errors.push("a response must have an id");
      const hasResult = "result" in msg;
      const hasError = "error" in msg;
      if (hasResult === hasError) errors.push("a response must have exactly one of result and error");
      if (hasError) {
        type = "Error";
        errors.push(...this.check("Error", msg.error).map((e) => `error: ${e}`));
        if (msg.id === null && ![-32700, -32600].includes(msg.error?.code) && requestMethodOf(null) === undefined) {
          errors.push(`id null is only for errors where the request id could not be read (-32700/-32600), got ${msg.error?.code}`);
        }
      } else if (hasResult) {
        const method = requestMethodOf(msg.id);
        if (method === undefined) {
          errors.push(`response to an id the client never used (or already answered): ${JSON.stringify(msg.id)}`);
        } else if (method === "session/cancel" || method === "$/cancel_request") {
          // notifications sent with an id: the schema has no response type; an empty object is the lenient answer
          type = "(result to a notification sent as a request)";
          if (msg.result === null || typeof msg.result !== "object" || Array.isArray(msg.result)) errors.push("result must be an object");
        } else {
          type = this.agentResponseType.get(method) ?? (method.startsWith("_") ? "ExtResponse" : null);
          if (!type) errors.push(`result for ${method}, which has no response type (a notification?)`);
          else errors.push(...this.check(type, msg.result).map((e) => `result: ${e}`));
        }
      }
    }
    return { type: type ?? "(unknown)", errors };
  }
}

function summarize(ajvErrors) {
  // anyOf/oneOf failures produce one error per branch; keep the deepest, most specific ones first
  const seen = new Set();
  const out = [];
  const sorted = [...(ajvErrors ?? [])].sort((a, b) => b.instancePath.length - a.instancePath.length);
  for (const e of sorted) {
    const s = `${e.instancePath || "/"} ${e.message}${e.params && Object.keys(e.params).length ? " " + JSON.stringify(e.params) : ""} (${e.schemaPath})`;
    if (!seen.has(s)) {
      seen.add(s);
      out.push(s);
    }
    if (out.length >= 8) break;
  }
  return out;
}

/**
 * Tracks one connection's traffic and validates every agent line. Feed it `clientSent(msg)` for each message the
 * client writes and `agentLine(text)` for each line the agent writes; read `violations` and `counts`.
 */
export class ConnectionChecker {
  constructor(schema = new AcpSchema()) {
    this.schema = schema;
    this.pendingClientRequests = new Map(); // id key -> [method, ...] (several only for id null)
    this.answeredClientRequests = new Map(); // id key -> count
    this.violations = [];
    this.counts = {};
    this.agentMessages = 0;
    this.lines = [];
  }

  static key(id) {
    return typeof id + ":" + String(id);
  }

  clientSent(msg) {
    if (msg && typeof msg.method === "string" && "id" in msg) {
      const k = ConnectionChecker.key(msg.id);
      const queue = this.pendingClientRequests.get(k);
      if (queue) queue.push(msg.method); // only id null repeats in practice
      else this.pendingClientRequests.set(k, [msg.method]);
    }
  }

  agentLine(text) {
    this.lines.push(text);
    let msg;
    try {
      msg = JSON.parse(text);
    } catch (e) {
      this.violations.push({ line: clip(text), type: "(not JSON)", errors: [String(e.message)] });
      return null;
    }
    this.agentMessages++;
    const { type, errors } = this.schema.validateAgentMessage(msg, (id) => this.pendingClientRequests.get(ConnectionChecker.key(id))?.[0]);
    if (msg && typeof msg === "object" && !("method" in msg) && "id" in msg) {
      const k = ConnectionChecker.key(msg.id);
      const queue = this.pendingClientRequests.get(k);
      const unreadableId = msg.id === null && [-32700, -32600].includes(msg.error?.code); // answers no particular request
      if (queue && !unreadableId) {
        queue.shift();
        if (queue.length === 0) this.pendingClientRequests.delete(k);
        this.answeredClientRequests.set(k, (this.answeredClientRequests.get(k) ?? 0) + 1);
      } else if (msg.id !== null && this.answeredClientRequests.has(k) && "error" in msg) {
        errors.push(`second answer to request id ${JSON.stringify(msg.id)}`);
      }
    }
    this.counts[type] = (this.counts[type] ?? 0) + 1;
    if (errors.length) this.violations.push({ line: clip(text), type, errors });
    return msg;
  }
}

function clip(s) {
  return s.length > 2000 ? s.slice(0, 2000) + `… (${s.length} chars)` : s;
}
