// A test A2C-SMCP office: the Server role of the spec (HTTP version middleware, namespace /smcp on path /smcp,
// offices as rooms, routing of client:* to Computers, notify:* broadcasts) and scripted Computers that join it
// as real Socket.IO clients. Started by the Java tests (SmcpOffice); port 0, the chosen port is printed.
//
//   node office.mjs [--a2c-version 0.2.0] [--token TOKEN] [--office OFFICE] [--computers alpha,gamma] [--max-agents 1]
//                   [--host 127.0.0.1] [--tls-pfx server.p12 --tls-pass PASSWORD]   (HTTPS with that certificate)
//
// stdout: one JSON line per event ({"ev":"listening","port":N} first; tool calls, cancels, joins...).
// stdin: commands, one a line: "join NAME", "leave NAME", "update NAME" (adds tool "extra", then
// server:update_tool_list), "config NAME", "drop-agents" (cuts the agents' connections: they must reconnect),
// "version X.Y.Z" (the office speaks X.Y.Z from now on, as if upgraded; Computers already in it stay), "quit".
//
// From --a2c-version 0.3.0 on the office speaks 0.3: the 4008 refusal names the accepted range (min_supported,
// max_supported), the role comes from server:join_office (not auth), tools are named <bundle_id>__<alias or name>
// with a bundle_id, client:get_skills / client:get_skill / client:get_blob are routed (large binary results and SKILL
// files travel as blob handles, in chunks), the Finder event client:get_dpe is gone, and a cancelled or timed-out call
// is answered with the result-level markers meta.a2c_cancelled / meta.a2c_timeout.
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import { Server } from "socket.io";
import { io as connect } from "socket.io-client";
import readline from "node:readline";

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith("--")) acc.push([a.slice(2), all[i + 1]]);
  return acc;
}, []));
let serverVersion = args["a2c-version"] ?? "0.2.0";
const token = args.token ?? null;
const officeId = args.office ?? "office-1";
const initialComputers = (args.computers ?? "alpha").split(",").filter(Boolean);

const log = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const speaks03 = (v) => { const [ma, mi] = v.split(".").map(Number); return ma > 0 || mi >= 3; };
let v03 = speaks03(serverVersion);

// ---- the Server role ----

const VERSION = /^(\d+)\.(\d+)\.(\d+)$/;
function versionProblem(url) {
  const q = new URL(url, "http://x").searchParams;
  const v = q.get("a2c_version");
  if (v === null) return { code: 400, message: "Missing a2c_version query parameter" };
  const m = VERSION.exec(v);
  if (!m) return { code: 400, message: `Invalid a2c_version: ${v}` };
  const s = VERSION.exec(serverVersion);
  const compatible = s[1] === "0" ? (m[1] === s[1] && m[2] === s[2]) : m[1] === s[1];
  if (!compatible) {
    const range = v03 ? { min_supported: `${s[1]}.${s[1] === "0" ? s[2] : 0}.0`,
                          max_supported: s[1] === "0" ? `${s[1]}.${s[2]}.999` : `${s[1]}.999.999` } : {};
    return { code: 4008, message: `Protocol version mismatch: server ${serverVersion}, client ${v}`,
             server_version: serverVersion, client_version: v, ...range };
  }
  return null;
}

const host = args.host ?? "127.0.0.1";
const tls = args["tls-pfx"] ? { pfx: fs.readFileSync(args["tls-pfx"]), passphrase: args["tls-pass"] } : null;
const httpServer = tls ? https.createServer(tls) : http.createServer();
const io = new Server({ path: "/smcp", cors: { origin: "*" } });
io.attach(httpServer);
// The version check runs before Socket.IO sees the request (polling and websocket upgrade alike).
for (const event of ["request", "upgrade"]) {
  const listeners = httpServer.listeners(event).slice();
  httpServer.removeAllListeners(event);
  httpServer.on(event, (req, resOrSocket, head) => {
    if (req.url.startsWith("/smcp")) {
      const problem = versionProblem(req.url);
      if (problem) {
        const body = JSON.stringify(problem);
        const headers = { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) };
        if (problem.code === 4008) headers["X-A2C-Error-Code"] = "4008";
        log({ ev: "refused", code: problem.code, client_version: new URL(req.url, "http://x").searchParams.get("a2c_version") });
        if (event === "request") {
          resOrSocket.writeHead(400, headers);
          resOrSocket.end(body);
        } else {
          resOrSocket.end("HTTP/1.1 400 Bad Request\r\n" + Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")
            + "Connection: close\r\n\r\n" + body);
        }
        return;
      }
    }
    for (const l of listeners) l.call(httpServer, req, resOrSocket, head);
  });
}

const nsp = io.of("/smcp");
const members = new Map(); // socket id -> {role, name, office}

nsp.use((socket, next) => {
  const auth = socket.handshake.auth ?? {};
  socket.data.authRole = auth.role ?? null;
  socket.data.a2cVersion = new URL(socket.request.url, "http://x").searchParams.get("a2c_version");
  if (v03) { // 0.3: the role is declared in server:join_office; a token, when given, must be right
    if (token !== null && auth.token !== undefined && auth.token !== token) {
      log({ ev: "bad_token" });
      return next(new Error("unauthorized: invalid token"));
    }
    socket.data.token = auth.token ?? null;
    return next();
  }
  if (auth.role !== "agent" && auth.role !== "computer") return next(new Error("auth.role must be agent or computer"));
  if (auth.role === "agent" && token !== null && auth.token !== token) {
    log({ ev: "bad_token" });
    return next(new Error("unauthorized: invalid token"));
  }
  socket.data.role = auth.role;
  socket.data.a2cVersion = new URL(socket.request.url, "http://x").searchParams.get("a2c_version");
  next();
});

function findComputer(office, name) {
  for (const [id, m] of members) if (m.role === "computer" && m.name === name && m.office === office) return nsp.sockets.get(id);
  return null;
}

function leave(socket) {
  const m = members.get(socket.id);
  if (!m) return;
  members.delete(socket.id);
  socket.leave(m.office);
  nsp.to(m.office).emit("notify:leave_office", { office_id: m.office, [m.role]: m.name });
  log({ ev: "left", role: m.role, name: m.name });
}

nsp.on("connection", (socket) => {
  socket.on("server:join_office", (req, ack) => {
    if (v03) {
      if (req?.role !== "agent" && req?.role !== "computer") return ack(false, "role must be agent or computer");
      if (req.role === "agent" && token !== null && socket.data.token !== token) return ack(false, "unauthorized: invalid token");
      socket.data.role = req.role;
    }
    if (req?.role !== socket.data.role) return ack(false, "role does not match the connection's auth.role");
    if (req.office_id !== officeId) return ack(false, `4102 office not found: ${req.office_id}`);
    if (req.role === "agent") {
      const agents = [...members.values()].filter((m) => m.role === "agent" && m.office === req.office_id);
      if (agents.length >= Number(args["max-agents"] ?? 1)) {
        log({ ev: "office_full", name: req.name });
        return ack(false, `4101 office full: agent ${agents[0].name} is already in office ${req.office_id}`);
      }
    }
    leave(socket); // a Computer joining a new office leaves its old one
    members.set(socket.id, { role: req.role, name: req.name, office: req.office_id });
    socket.join(req.office_id);
    socket.to(req.office_id).emit("notify:enter_office", { office_id: req.office_id, [req.role]: req.name });
    log({ ev: "joined", role: req.role, name: req.name, version: socket.data.a2cVersion, auth_role: socket.data.authRole });
    ack(true, null);
  });
  socket.on("server:leave_office", (_req, ack) => { leave(socket); ack?.(true, null); });
  socket.on("server:list_room", (req, ack) => {
    const me = members.get(socket.id);
    if (!me || me.office !== req.office_id) return ack({ code: 4103, message: "not in office " + req.office_id });
    const sessions = [...members.entries()].filter(([, m]) => m.office === req.office_id).map(([sid, m]) => ({
      sid, name: m.name, role: m.role, office_id: m.office, a2c_version: nsp.sockets.get(sid)?.data.a2cVersion }));
    ack({ sessions, req_id: req.req_id });
  });
  for (const event of ["server:update_config", "server:update_tool_list", "server:update_desktop"]) {
    socket.on(event, (req) => {
      const m = members.get(socket.id);
      if (m) nsp.to(m.office).emit(event.replace("server:", "notify:"), { computer: req.computer });
    });
  }
  socket.on("server:tool_call_cancel", (req, ack) => {
    const m = members.get(socket.id);
    log({ ev: "cancel_received", req_id: req.req_id, fields: Object.keys(req).sort(), asked_for_ack: typeof ack === "function" });
    if (m) nsp.to(m.office).emit("notify:tool_call_cancel", { agent: req.agent, req_id: req.req_id });
  });
  // client:* events: routed to the named Computer of the agent's own office; its answer is the agent's ack.
  const routed = ["client:tool_call", "client:get_tools", "client:get_config", "client:get_desktop", "client:get_resources",
    ...(v03 ? ["client:get_skills", "client:get_skill", "client:get_blob"] : ["client:get_dpe"])];
  for (const event of routed) {
    socket.on(event, async (req, ack) => {
      const me = members.get(socket.id);
      if (!me || me.role !== "agent") return ack({ code: 4103, message: "the agent is not in an office" });
      const target = findComputer(me.office, req.computer);
      if (!target) {
        const elsewhere = [...members.values()].some((m) => m.role === "computer" && m.name === req.computer);
        return ack(elsewhere ? { code: 4104, message: `computer ${req.computer} is in another office` }
                             : { code: 4001, message: `computer ${req.computer} not found in office ${me.office}` });
      }
      try {
        const wait = event === "client:tool_call" ? (req.timeout ?? 30) * 1000 + (v03 ? 5000 : 1000) : 30000;
        ack(await target.timeout(wait).emitWithAck(event, req));
      } catch {
        ack({ code: 4004, message: `computer ${req.computer} did not answer ${event} in time` });
      }
    });
  }
  socket.on("disconnect", () => leave(socket));
});

// ---- scripted Computers ----

// SMCPTool.meta: a2c_tool_meta and MCP_TOOL_ANNOTATION are JSON strings (data structures, "SMCPTool.meta")
const meta = (m, readOnly) => ({ a2c_tool_meta: JSON.stringify({ auto_apply: null, alias: null, tags: null, ret_object_mapper: null, ...m }),
  ...(readOnly ? { MCP_TOOL_ANNOTATION: JSON.stringify({ readOnlyHint: true, destructiveHint: false }) } : {}) });
function toolsOf(name, extra) {
  const tools = [
    { name: "echo", description: `Echoes its text back (computer ${name}).`,
      params_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      return_schema: null, meta: meta({ auto_apply: true }, true) },
    { name: "note", description: "Records a note on the computer (asks first).",
      params_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      return_schema: null, meta: meta({}) },
    { name: "stamp", description: "Stamps a note without asking (auto_apply) but changes things.",
      params_schema: { type: "object", properties: { text: { type: "string" } } },
      return_schema: null, meta: meta({ auto_apply: true }) },
    { name: "slow", description: "Takes as long as it is told (seconds).",
      params_schema: { type: "object", properties: { seconds: { type: "number" } } },
      return_schema: null, meta: meta({ auto_apply: true }, true) },
    { name: "fail", description: "Always fails.", params_schema: { type: "object", properties: {} },
      return_schema: null, meta: meta({ auto_apply: true }, true) },
    { name: "picture", description: "Returns a tiny image.", params_schema: { type: "object", properties: {} },
      return_schema: null, meta: meta({ auto_apply: true }, true) },
    // two MCP servers on this Computer both offer "search": their aliases tell them apart
    { name: "search", description: "Searches the web.", params_schema: { type: "object", properties: { q: { type: "string" } } },
      return_schema: null, meta: meta({ alias: "web_search", auto_apply: true }, true) },
    { name: "search", description: "Searches the documents.", params_schema: { type: "object", properties: { q: { type: "string" } } },
      return_schema: null, meta: meta({ alias: "doc_search", auto_apply: true }, true) },
  ];
  if (extra) tools.push({ name: "extra", description: "A tool added later.", params_schema: { type: "object", properties: {} },
    return_schema: null, meta: meta({ auto_apply: true }, true) });
  if (!v03) return tools;
  // 0.3: binary results too large to inline travel as blob handles
  for (const [n, d] of [["big", "Returns a large image (by blob handle)."], ["corrupt", "Returns an image whose bytes do not match their sha256."],
                        ["huge", "Returns an image larger than any agent should take."]]) {
    tools.push({ name: n, description: d, params_schema: { type: "object", properties: {} }, return_schema: null, meta: meta({ auto_apply: true }, true) });
  }
  // the exposed name: <bundle_id>__<alias or name>, unique on the Computer; bundle_id says which MCP server
  return tools.map((t) => {
    const bundle = t.name === "search" ? (JSON.parse(t.meta.a2c_tool_meta).alias === "web_search" ? "web" : "docs") : "files";
    return { ...t, name: `${bundle}__${JSON.parse(t.meta.a2c_tool_meta).alias ?? t.name}`, bundle_id: bundle, original: t.name };
  });
}

// 0.3 blobs: handle -> {bytes, sha256 (announced), mime}; the Computer clamps chunks to 256 KiB
const BLOB_CHUNK = 256 * 1024;
const sha256 = (b) => crypto.createHash("sha256").update(b).digest("hex");
const bigBytes = Buffer.alloc(700 * 1024 + 123, 0);
for (let i = 0; i < bigBytes.length; i++) bigBytes[i] = (i * 31 + 7) % 251;
const logoBytes = Buffer.from(PNG_DATA(), "base64");
const blobs = new Map([
  ["h-big-1", { bytes: bigBytes, sha256: sha256(bigBytes), mime: "image/png" }],
  // the bytes served differ (one byte flipped) from those the sha256 was taken of
  ["h-corrupt-1", { bytes: Buffer.from(bigBytes.map((b, i) => (i === 4242 ? b ^ 1 : b))), sha256: sha256(bigBytes), mime: "image/png" }],
  ["h-logo-1", { bytes: logoBytes, sha256: sha256(logoBytes), mime: "image/png" }],
]);
const blobItem = (handle, size, sha) => ({ type: "image", data: "", mimeType: "image/png",
  _meta: { a2c_blob_handle: handle, a2c_total_size: size, a2c_sha256: sha, note: "kept" } });
function PNG_DATA() { return "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="; }

// --mcp-computer NAME --mcp-server PATH: Computer NAME hosts a real MCP stdio server (node PATH) and offers its
// tools, forwarding client:tool_call to it, as a real Computer does (the MCP SDK comes from interop/mcp-servers).
let mcp = null;
if (args["mcp-computer"] && args["mcp-server"]) {
  const sdk = new URL("../mcp-servers/node_modules/@modelcontextprotocol/sdk/dist/esm/client/", import.meta.url);
  const { Client } = await import(new URL("index.js", sdk));
  const { StdioClientTransport } = await import(new URL("stdio.js", sdk));
  const client = new Client({ name: "smcp-test-computer", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [args["mcp-server"], "stdio"], stderr: "ignore" }));
  const { tools } = await client.listTools();
  mcp = { name: args["mcp-computer"], client, tools: tools.map((t) => ({ name: t.name, description: t.description ?? "",
    params_schema: t.inputSchema, return_schema: t.outputSchema ?? null,
    meta: { a2c_tool_meta: JSON.stringify({ auto_apply: true }), ...(t.annotations ? { MCP_TOOL_ANNOTATION: JSON.stringify(t.annotations) } : {}) } })) };
  initialComputers.push(mcp.name);
}

const computers = new Map(); // name -> {socket, extra, pending: Map(req_id -> finish)}
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const text = (t, isError = false) => ({ content: [{ type: "text", text: t }], isError });

function startComputer(name, onJoined) {
  const port = httpServer.address().port;
  // the office's own scripted Computers: they need not check its (test) certificate
  const socket = connect(`${tls ? "https" : "http"}://${host.includes(":") ? `[${host}]` : host}:${port}/smcp`, { path: "/smcp",
    query: { a2c_version: serverVersion }, auth: v03 ? {} : { role: "computer" }, transports: ["websocket"], rejectUnauthorized: false });
  const c = { socket, extra: false, pending: new Map() };
  computers.set(name, c);
  socket.on("connect", () => {
    socket.emit("server:join_office", { role: "computer", name, office_id: officeId }, (ok, err) => {
      log({ ev: "computer_ready", name, ok, err });
      onJoined?.();
      onJoined = null;
    });
  });
  if (mcp && name === mcp.name) {
    socket.on("client:get_tools", (req, ack) => ack({ tools: mcp.tools, req_id: req.req_id }));
    socket.on("client:tool_call", async (req, ack) => {
      try { ack(await mcp.client.callTool({ name: req.tool_name, arguments: req.params })); }
      catch (e) { ack({ content: [{ type: "text", text: String(e.message ?? e) }], isError: true }); }
    });
    return;
  }
  socket.on("client:get_tools", (req, ack) => ack({ tools: toolsOf(name, c.extra).map(({ original, ...t }) => t), req_id: req.req_id }));
  if (v03) {
    socket.on("client:get_skills", (req, ack) => ack({ skills: [{ name: "pdf-report", description: "Writes PDF reports the house way.",
      source: "user" }], req_id: req.req_id }));
    socket.on("client:get_skill", (req, ack) => {
      log({ ev: "get_skill", name: req.name, rel_path: req.rel_path ?? null });
      if (!/^[a-z0-9][a-z0-9-]*(:[a-z0-9-]+)*$/.test(req.name ?? "")) return ack({ code: 4016, message: `invalid skill name: ${req.name}`, details: { name: req.name } });
      if (req.name !== "pdf-report") return ack({ code: 4014, message: `skill not found: ${req.name}`, mcp_server: req.name });
      const rel = req.rel_path ?? "SKILL.md";
      if (rel === "SKILL.md") {
        const body = "# PDF reports\nUse the house template; put the logo (logo.png) top left.\n";
        return ack({ name: req.name, rel_path: rel, mime_type: "text/markdown", total_size: Buffer.byteLength(body),
          sha256: sha256(Buffer.from(body)), body, req_id: req.req_id });
      }
      if (rel === "logo.png") {
        const b = blobs.get("h-logo-1");
        return ack({ name: req.name, rel_path: rel, mime_type: "image/png", total_size: b.bytes.length, sha256: b.sha256, blob_handle: "h-logo-1", req_id: req.req_id });
      }
      return ack({ code: 4017, message: `not accessible: ${rel}`, details: { reason: rel.includes("..") ? "traversal" : "not_found", rel_path: rel } });
    });
    socket.on("client:get_blob", (req, ack) => {
      log({ ev: "get_blob", handle: req.blob_handle, offset: req.chunk_offset ?? 0, max: req.max_chunk_bytes ?? null });
      const b = blobs.get(req.blob_handle);
      if (!b) return ack({ code: 4018, message: "blob not accessible", details: { reason: "invalid_handle" } });
      const offset = req.chunk_offset ?? 0;
      if (offset < 0 || offset > b.bytes.length) return ack({ code: 4018, message: "blob not accessible", details: { reason: "range" } });
      const end = Math.min(b.bytes.length, offset + Math.min(req.max_chunk_bytes ?? BLOB_CHUNK, BLOB_CHUNK));
      ack({ blob_handle: req.blob_handle, mime_type: b.mime, total_size: b.bytes.length, sha256: b.sha256, chunk_offset: offset,
        eof: end === b.bytes.length, blob: b.bytes.subarray(offset, end).toString("base64"), req_id: req.req_id });
    });
  }
  socket.on("client:get_config", (req, ack) => ack({ inputs: [], servers: { files: { name: "files", type: "stdio", disabled: false } } }));
  socket.on("client:get_desktop", (req, ack) => ack({ desktops: [`window://${name}/main?priority=80\n\nThe main window of ${name}`], req_id: req.req_id }));
  socket.on("client:get_resources", (req, ack) => {
    if (req.mcp_server !== "files") return ack({ code: 404, message: `MCP server not found: ${req.mcp_server}` });
    ack({ resources: [{ uri: `dpe://${name}/report-1`, name: "report-1", mimeType: "application/pdf" }], req_id: req.req_id });
  });
  socket.on("client:get_dpe", (req, ack) => ack({ uri: `https://files.example/${encodeURIComponent(req.uri)}`, mime_type: "application/pdf", size: 1234, req_id: req.req_id }));
  socket.on("notify:tool_call_cancel", (req) => {
    log({ ev: "cancelled", computer: name, req_id: req.req_id });
    const finish = c.pending.get(req.req_id);
    if (finish) finish(v03 ? { ...text("cancelled", true), meta: { a2c_cancelled: true, a2c_cancel_reason: "agent_requested" } } : text("cancelled", true));
  });
  socket.on("client:tool_call", (req, ack) => {
    log({ ev: "tool_call", computer: name, tool: req.tool_name, params: req.params, req_id: req.req_id, agent: req.agent, timeout: req.timeout });
    let tool = req.tool_name;
    if (v03) { // routed by the exposed name only
      const t = toolsOf(name, c.extra).find((x) => x.name === req.tool_name);
      if (!t) return ack({ code: 4001, message: `tool not found: ${req.tool_name}` });
      tool = t.original;
    }
    switch (tool) {
      case "big": return ack({ content: [{ type: "text", text: "the chart:" }, blobItem("h-big-1", bigBytes.length, sha256(bigBytes))], isError: false });
      case "corrupt": return ack({ content: [blobItem("h-corrupt-1", bigBytes.length, sha256(bigBytes))], isError: false });
      case "huge": return ack({ content: [blobItem("h-huge-1", 100 * 1024 * 1024, sha256(bigBytes))], isError: false });
      case "echo": return ack(text(`${name} says: ${req.params.text}`));
      case "note": case "stamp": log({ ev: "side_effect", computer: name, tool: req.tool_name, text: req.params.text }); return ack(text("noted"));
      case "fail": return ack(text("the disk is full", true));
      case "picture": return ack({ content: [{ type: "text", text: "a picture:" }, { type: "image", data: PNG, mimeType: "image/png" }], isError: false });
      case "search": return ack(text(`results for ${req.params.q}`));
      case "extra": return ack(text("extra works"));
      case "slow": {
        const seconds = req.params.seconds ?? 60;
        // 0.3: the Computer keeps to the call's timeout and says so with meta.a2c_timeout
        const timedOut = v03 && req.timeout && seconds > req.timeout;
        const timer = setTimeout(() => { c.pending.delete(req.req_id);
          ack(timedOut ? { ...text("tool call timed out", true), meta: { a2c_timeout: true } } : text("slow done")); },
          (timedOut ? req.timeout : seconds) * 1000);
        c.pending.set(req.req_id, (r) => { clearTimeout(timer); c.pending.delete(req.req_id); ack(r); });
        return;
      }
      default: return ack({ code: 4001, message: `tool not found: ${req.tool_name}` });
    }
  });
}

// "listening" is printed once the initial Computers are in the office, so an agent that joins then sees them.
let waiting = initialComputers.length;
const ready = () => log({ ev: "listening", port: httpServer.address().port, office: officeId, version: serverVersion });
httpServer.listen(0, host, () => {
  if (waiting === 0) return ready();
  for (const name of initialComputers) startComputer(name, () => { if (--waiting === 0) ready(); });
});

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const [cmd, name] = line.trim().split(/\s+/);
  const c = computers.get(name);
  switch (cmd) {
    case "join": startComputer(name); break;
    case "leave": if (c) { c.socket.disconnect(); computers.delete(name); } break;
    case "update": if (c) { c.extra = true; c.socket.emit("server:update_tool_list", { computer: name }); } break;
    case "config": if (c) c.socket.emit("server:update_config", { computer: name }); break;
    case "drop-agents":
      // a lost network: the TCP connection ends without a closing handshake
      for (const [id, m] of members) {
        const conn = m.role === "agent" ? nsp.sockets.get(id)?.conn : null;
        if (conn?.transport?.socket?.terminate) conn.transport.socket.terminate(); else conn?.close();
      }
      break;
    case "version": serverVersion = name; v03 = speaks03(name); break; // an upgraded office: new connections meet it
    case "quit": process.exit(0);
  }
  log({ ev: "done", cmd, name: name ?? null });
}).on("close", () => process.exit(0));
