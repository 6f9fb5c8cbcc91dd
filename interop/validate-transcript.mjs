#!/usr/bin/env node
// Validates the agent's side of an ACP transcript (one JSON-RPC message per line, both directions mixed,
// as `acpx --format json` prints it) against the official v1 schema.
//   node validate-transcript.mjs [--directed] transcript.jsonl   (or the transcript on stdin)
// Prints {"agentMessages": N, "clientMessages": N, "violations": [...], "counts": {...}} and exits 1 on any
// violation (or when no agent message was found at all).

import { readFileSync } from "node:fs";
import { AcpSchema, ConnectionChecker } from "./acp-schema.mjs";

// --directed: each line is {"dir":"in","msg":{...}} (a client message) or {"dir":"out","line":"..."} (a raw agent
// line), for transcripts whose client side is not a well-behaved client (FuzzIT).
const args = process.argv.slice(2);
const directed = args[0] === "--directed";
if (directed) args.shift();
const text = readFileSync(args[0] ?? 0, "utf8");
const schema = new AcpSchema();
const checker = new ConnectionChecker(schema);
const pendingAgentRequests = new Map(); // id key -> sequence number
const clientRequestSeq = new Map(); // id key -> sequence number of the latest client request with that id
let seq = 0;
let clientMessages = 0;
const skipped = [];

for (const line of text.split("\n")) {
  if (!line.trim()) continue;
  if (directed) {
    const entry = JSON.parse(line);
    if (entry.dir === "in") {
      clientMessages++;
      checker.clientSent(entry.msg);
    } else {
      checker.agentLine(entry.line);
    }
    continue;
  }
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    skipped.push(line.slice(0, 200)); // not a protocol line (acpx prints only JSON in this mode, but be safe)
    continue;
  }
  if (msg === null || typeof msg !== "object" || msg.jsonrpc !== "2.0") {
    skipped.push(line.slice(0, 200));
    continue;
  }
  if (typeof msg.method === "string") {
    const fromClient = schema.isClientMethod(msg.method) && !schema.agentNotificationType.has(msg.method);
    if (fromClient) {
      clientMessages++;
      checker.clientSent(msg);
      if ("id" in msg) clientRequestSeq.set(ConnectionChecker.key(msg.id), ++seq);
    } else {
      if ("id" in msg) pendingAgentRequests.set(ConnectionChecker.key(msg.id), ++seq);
      checker.agentLine(line);
    }
  } else {
    // Both sides number their requests from small integers, so one id may be pending both ways (the client's
    // session/prompt 2 and the agent's terminal/create 2). Requests nest: the newer one is answered first.
    const k = ConnectionChecker.key(msg.id);
    const clientPending = checker.pendingClientRequests.has(k);
    const agentPending = pendingAgentRequests.has(k);
    const answersAgent = agentPending && (!clientPending || pendingAgentRequests.get(k) > (clientRequestSeq.get(k) ?? 0));
    if (answersAgent) {
      pendingAgentRequests.delete(k);
      clientMessages++;
    } else {
      checker.agentLine(line); // an agent response (or an answer to an unknown id, reported)
    }
  }
}

const summary = {
  schema: schema.path,
  sdkVersion: schema.version,
  agentMessages: checker.agentMessages,
  clientMessages,
  counts: checker.counts,
  unansweredClientRequests: [...checker.pendingClientRequests.entries()].slice(0, 50),
  skippedLines: skipped,
  violationCount: checker.violations.length,
  violations: checker.violations.slice(0, 100),
};
process.stdout.write(JSON.stringify(summary, null, 2) + "\n");
process.exit(checker.violations.length === 0 && checker.agentMessages > 0 ? 0 : 1);
