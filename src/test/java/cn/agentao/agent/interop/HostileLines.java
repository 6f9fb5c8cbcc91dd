package cn.agentao.agent.interop;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;

/**
 * A seeded generator of hostile input lines for an ACP agent: random bytes (NULs, invalid UTF-8), truncated JSON,
 * deep nesting, huge numbers and strings, wrong types in every field of every method, broken envelopes, unknown
 * methods, and valid requests among them. A line never contains a raw newline. Request ids are unique.
 *
 * <p>The same seed gives the same sequence of choices; lines that name a live session use the ids the agent gave
 * out, which differ between runs.
 */
final class HostileLines {
    /** One generated line and what kind of hostility it is (for reports). */
    record Line(byte[] bytes, String kind) {}

    static final List<String> METHODS = List.of("initialize", "authenticate", "session/new", "session/load",
            "session/resume", "session/list", "session/close", "session/delete", "session/prompt", "session/cancel",
            "session/set_mode", "session/set_config_option", "_agentao.cn/set_model", "session/set_model",
            "session/list_models", "$/cancel_request", "logout");

    private final Random rnd;
    private final String cwd;
    /** Sessions the agent opened for us; prompts and settings go to them. The last one is closed, loaded, deleted. */
    private final List<String> sessions;
    private long nextId = 1_000_000; // clear of the ids AgentProcess uses for its own calls
    private final List<Long> recentIds = new ArrayList<>();
    private int raw; // placeholder counter

    HostileLines(long seed, String cwd, List<String> sessions) {
        this.rnd = new Random(seed);
        this.cwd = cwd;
        this.sessions = sessions;
    }

    // ------------------------------------------------------------------ the mix

    Line next() {
        int r = rnd.nextInt(1000);
        if (r < 60) return new Line(randomBytes(rnd.nextInt(300)), "random-bytes");
        if (r < 90) return new Line(utf8(randomText(rnd.nextInt(200))), "random-text");
        if (r < 190) return truncated();
        if (r < 200) return deepNesting();
        if (r < 240) return hugeNumber();
        if (r < 245) return hugeString();
        if (r < 600) return wrongTypes();
        if (r < 690) return brokenEnvelope();
        if (r < 730) return unknownMethod();
        if (r < 750) return new Line(utf8(pick("[]", "[1,2,3]", "\"just a string\"", "42", "null", "true", "-0", "{}",
                "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}]", " \t ", "\r")), "not-an-object");
        return valid();
    }

    long freshId() {
        long id = nextId++;
        recentIds.add(id);
        if (recentIds.size() > 50) recentIds.remove(0);
        return id;
    }

    // ------------------------------------------------------------------ templates: a valid params object per method

    ObjectNode template(String method) {
        ObjectNode p = Json.object();
        switch (method) {
            case "initialize" -> {
                p.put("protocolVersion", 1);
                ObjectNode caps = p.putObject("clientCapabilities");
                caps.putObject("fs").put("readTextFile", true).put("writeTextFile", true);
                caps.put("terminal", false);
                p.putObject("clientInfo").put("name", "fuzz").put("version", "1");
            }
            case "authenticate" -> p.put("methodId", "model-provider-env");
            case "session/new" -> {
                p.put("cwd", cwd);
                ArrayNode mcp = p.putArray("mcpServers");
                if (rnd.nextInt(4) == 0) {
                    // never a real command: a fuzzed server must not start anything
                    ObjectNode s = mcp.addObject().put("name", "fuzz").put("command", "/nonexistent/fuzz-mcp-server");
                    s.putArray("args").add("--x");
                    s.putArray("env").addObject().put("name", "A").put("value", "b");
                }
                p.putArray("additionalDirectories").add(cwd);
            }
            case "session/load" -> {
                p.put("sessionId", sessionId(true));
                p.put("cwd", cwd);
                p.putArray("mcpServers");
            }
            case "session/resume" -> p.put("sessionId", sessionId(true)).put("cwd", cwd);
            case "session/list" -> {
                if (rnd.nextBoolean()) p.put("cwd", cwd);
                if (rnd.nextInt(4) == 0) p.put("cursor", "bm90LWEtY3Vyc29y");
            }
            case "session/close", "session/delete" -> p.put("sessionId", sessionId(true));
            case "session/cancel" -> p.put("sessionId", sessionId());
            case "session/prompt" -> {
                p.put("sessionId", sessionId());
                ArrayNode prompt = p.putArray("prompt");
                prompt.addObject().put("type", "text").put("text", "fuzz " + rnd.nextInt(1000));
                switch (rnd.nextInt(5)) {
                    case 0 -> prompt.addObject().put("type", "resource_link").put("uri", "file://" + cwd + "/a.txt").put("name", "a.txt");
                    case 1 -> prompt.addObject().put("type", "image").put("mimeType", "image/png")
                            .put("data", Base64.getEncoder().encodeToString(randomBytes(rnd.nextInt(64) + 1)));
                    case 2 -> prompt.addObject().put("type", "resource").putObject("resource")
                            .put("uri", "file://" + cwd + "/b.txt").put("text", "contents");
                    default -> { }
                }
            }
            case "session/set_mode" -> p.put("sessionId", sessionId()).put("modeId", pick("read-only", "workspace-write", "plan", "custom"));
            case "session/set_config_option" -> p.put("sessionId", sessionId()).put("configId", pick("mode", "model"))
                    .put("value", pick("workspace-write", "openai/fake-model", "fake-model"));
            case "_agentao.cn/set_model" -> p.put("sessionId", sessionId()).put("model", "fake-model");
            case "session/set_model" -> p.put("sessionId", sessionId()).put("modelId", pick("openai/fake-model", "fake-model", "no/such-model"));
            case "session/list_models" -> p.put("sessionId", sessionId());
            case "$/cancel_request" -> p.put("requestId", recentIds.isEmpty() ? 1 : recentIds.get(rnd.nextInt(recentIds.size())));
            default -> { }
        }
        return p;
    }

    /** A live session for prompts and settings; close, delete, load and resume only ever get the last one. */
    private String sessionId() {
        return sessionId(false);
    }

    private String sessionId(boolean destructive) {
        int r = rnd.nextInt(10);
        if (r < 7 && !sessions.isEmpty()) {
            return destructive ? sessions.get(sessions.size() - 1) : sessions.get(rnd.nextInt(Math.max(1, sessions.size() - 1)));
        }
        if (r < 9) return "00000000-0000-4000-8000-" + String.format("%012d", rnd.nextInt(1_000_000));
        return pick("", " ", "../../etc/passwd", "a/b", "x".repeat(300), "\u0000", "é");
    }

    static ObjectNode envelope(Object id, String method, JsonNode params) {
        ObjectNode m = Json.object().put("jsonrpc", "2.0");
        if (id instanceof Long l) m.put("id", l);
        else if (id instanceof String s) m.put("id", s);
        m.put("method", method);
        if (params != null) m.set("params", params);
        return m;
    }

    // ------------------------------------------------------------------ generators

    private Line valid() {
        String method = pickWeighted();
        ObjectNode params = template(method);
        boolean notification = method.equals("session/cancel") || (method.equals("$/cancel_request") && rnd.nextInt(4) > 0);
        ObjectNode m = envelope(notification ? null : freshId(), method, params);
        return new Line(utf8(m.toString()), "valid " + method);
    }

    private String pickWeighted() {
        int r = rnd.nextInt(100);
        if (r < 36) return "session/prompt";
        if (r < 40) return "session/cancel"; // rare enough that turns with tool calls get to finish
        if (r < 50) return "session/new";
        if (r < 55) return "session/list";
        if (r < 62) return "session/set_mode";
        if (r < 67) return "session/set_config_option";
        if (r < 70) return "_agentao.cn/set_model";
        if (r < 72) return "session/set_model";
        if (r < 74) return "session/list_models";
        if (r < 77) return "$/cancel_request";
        if (r < 80) return "initialize";
        if (r < 82) return "authenticate";
        if (r < 86) return "session/load";
        if (r < 90) return "session/resume";
        if (r < 95) return "session/close";
        return "session/delete";
    }

    /** A valid request, cut short (incomplete JSON, or a complete prefix followed by junk). */
    private Line truncated() {
        String full = envelope(freshId(), pick(METHODS), template(pick(METHODS))).toString();
        int cut = rnd.nextInt(Math.max(1, full.length() - 1));
        String s = full.substring(0, cut);
        if (rnd.nextInt(5) == 0) s = full + pick("}", "]", ",", " x", "{}", "\u0000");
        return new Line(utf8(s), "truncated");
    }

    private Line deepNesting() {
        int depth = pick(600, 5_000, 100_000);
        String open = pick("[", "{\"a\":", "[{\"a\":");
        StringBuilder sb = new StringBuilder();
        int r = rnd.nextInt(3);
        if (r == 0) {
            sb.append(open.repeat(depth));
        } else if (r == 1) {
            // inside a valid envelope: the whole line is still one over-deep document
            sb.append("{\"jsonrpc\":\"2.0\",\"id\":").append(freshId()).append(",\"method\":\"session/prompt\",\"params\":{\"sessionId\":\"")
                    .append(sessions.isEmpty() ? "x" : sessions.get(0)).append("\",\"prompt\":").append("[".repeat(depth));
        } else {
            // just under the parser's limit, balanced: must parse and be refused politely
            int d = 400;
            sb.append("{\"jsonrpc\":\"2.0\",\"id\":").append(freshId()).append(",\"method\":\"").append(pick(METHODS))
                    .append("\",\"params\":{\"sessionId\":").append("[".repeat(d)).append("]".repeat(d)).append("}}");
        }
        return new Line(utf8(sb.toString()), "deep-nesting");
    }

    private Line hugeNumber() {
        String n = hugeNumberText();
        String method = pick(METHODS);
        ObjectNode params = template(method);
        List<String> paths = paths(params);
        String placeholder = placeholder();
        if (!paths.isEmpty() && rnd.nextBoolean()) set(params, pick(paths), Json.mapper().getNodeFactory().textNode(placeholder));
        else params.put("protocolVersion", placeholder);
        String s = envelope(freshId(), method, params).toString().replace("\"" + placeholder + "\"", n);
        if (rnd.nextInt(4) == 0) {
            // the number as the id itself (never tracked as a valid id unless integral)
            String id = n.matches("-?[0-9]+") ? n + (nextId++) : n; // integral ids are answered, so unique
            s = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":{}}";
        }
        return new Line(utf8(s), "huge-number");
    }

    private String hugeNumberText() {
        return switch (rnd.nextInt(8)) {
            case 0 -> "1e400";
            case 1 -> "-1e400";
            case 2 -> "1" + digits(499);
            case 3 -> "-" + "9" + digits(499);
            case 4 -> "1" + digits(1999); // longer than the parser's number limit
            case 5 -> "0." + "0".repeat(400) + "1";
            case 6 -> "1.7976931348623157e309";
            default -> "9223372036854775808";
        };
    }

    private Line hugeString() {
        int size = pick(256 * 1024, 1024 * 1024, 3 * 1024 * 1024);
        String big = "x".repeat(size);
        String method = pick("session/prompt", "session/new", "session/load", "initialize", "no/such/" + big.substring(0, 1000));
        ObjectNode params = template(method.startsWith("no/") ? "session/list" : method);
        List<String> paths = paths(params);
        if (!paths.isEmpty()) set(params, pick(paths), Json.mapper().getNodeFactory().textNode(big));
        Object id = rnd.nextInt(4) == 0 ? "id-" + nextId++ + "-" + big.substring(0, 10_000) : (Object) freshId();
        return new Line(utf8(envelope(id, method, params).toString()), "huge-string");
    }

    /** One field of one method's params (at any depth) gets a value of the wrong type, or goes missing. */
    private Line wrongTypes() {
        String method = pick(METHODS);
        ObjectNode params = template(method);
        String kind;
        JsonNode paramsOut = params;
        String rawText = null;
        int r = rnd.nextInt(10);
        List<String> paths = paths(params);
        if (r == 0 || paths.isEmpty()) {
            paramsOut = wrongValue();
            kind = "wrong params type";
        } else if (r == 1) {
            remove(params, pick(paths));
            kind = "missing field";
        } else if (r == 2) {
            params.put("unexpected" + rnd.nextInt(5), "field");
            params.set("_meta", Json.object().put("x", 1));
            kind = "extra fields";
        } else {
            String path = pick(paths);
            if (rnd.nextInt(6) == 0) {
                String placeholder = placeholder();
                set(params, path, Json.mapper().getNodeFactory().textNode(placeholder));
                rawText = placeholder;
            } else {
                set(params, path, wrongValue());
            }
            kind = "wrong type at " + path;
        }
        boolean notification = rnd.nextInt(8) == 0;
        String s = envelope(notification ? null : freshId(), method, paramsOut).toString();
        if (rawText != null) s = s.replace("\"" + rawText + "\"", pick("1e400", "NaN", "Infinity", "-", "01", "1.", ".5", "+1", "0x10", "tru", "nul"));
        return new Line(utf8(s), "wrong-type " + (notification ? "notification " : "") + method + ": " + kind);
    }

    private Line brokenEnvelope() {
        String method = pick(METHODS);
        ObjectNode params = template(method);
        ObjectNode m = Json.object();
        int r = rnd.nextInt(12);
        switch (r) {
            case 0 -> m.put("jsonrpc", pick("1.0", "2", "")).put("id", freshId()).put("method", method).set("params", params);
            case 1 -> m.put("jsonrpc", 2.0).put("id", freshId()).put("method", method).set("params", params);
            case 2 -> m.put("id", freshId()).put("method", method).set("params", params); // no jsonrpc
            case 3 -> m.put("jsonrpc", "2.0").put("id", freshId()).set("params", params); // no method
            case 4 -> m.put("jsonrpc", "2.0").put("id", freshId()).set("method", wrongValue());
            case 5 -> m.put("jsonrpc", "2.0").set("id", pickNode(Json.mapper().getNodeFactory().numberNode(1.5),
                    Json.mapper().getNodeFactory().booleanNode(true), Json.object().put("a", 1), Json.mapper().createArrayNode().add(1)));
            case 6 -> m.put("jsonrpc", "2.0").putNull("id").put("method", pick("$/cancel_request", "no/such/method", "initialize"))
                    .set("params", Json.object().put("requestId", -1).put("protocolVersion", "x"));
            case 7 -> m.put("jsonrpc", "2.0").put("id", rnd.nextInt(100_000) + 10_000_000L).set("result", wrongValue()); // stray response
            case 8 -> m.put("jsonrpc", "2.0").put("id", "nobody-asked").putObject("error").put("code", -1).put("message", "x");
            case 9 -> m.put("jsonrpc", "2.0").put("id", "s-" + freshId()).put("method", method).set("params", params); // string id
            case 10 -> m.put("jsonrpc", "2.0").put("method", method).set("params", wrongValue()); // notification, bad params
            default -> m.put("jsonrpc", "2.0").put("id", -(long) freshId()).put("method", method).set("params", params);
        }
        if (r == 5) m.put("method", method);
        return new Line(utf8(m.toString()), "envelope #" + r);
    }

    private Line unknownMethod() {
        String name = pick("session/unknown", "_vendor/thing", "", "rpc.discover", "SESSION/NEW", "session/new ", "fs/read_text_file",
                "session/update", "terminal/create", "initialize\u0000", "\u00e9\u00e8", "_agentao.cn/ask_user", "elicitation/create");
        boolean notification = rnd.nextInt(3) == 0;
        ObjectNode m = envelope(notification ? null : freshId(), name, rnd.nextBoolean() ? Json.object() : null);
        return new Line(utf8(m.toString()), "unknown-method " + (notification ? "notification " : "") + name);
    }

    // ------------------------------------------------------------------ the model, as hostile as the client

    /**
     * Answers for the fake model: text, or tool calls with odd names and arguments (wrong types, malformed JSON,
     * paths inside and outside the workspace). Nothing here is destructive even if it ran: the test's permission
     * answers never allow, and what runs without asking stays inside {@code ws} or only reads.
     */
    static List<cn.agentao.agent.testing.Script> modelReplies(long seed, String ws, int n) {
        Random r = new Random(seed ^ 0x5DEECE66DL);
        List<cn.agentao.agent.testing.Script> out = new ArrayList<>();
        String[] tools = {"read_file", "write_file", "edit", "list_directory", "glob", "grep", "run_shell_command",
                "web_fetch", "todo_write", "ask_user", "no_such_tool", "", "read_file\u0000"};
        String[] paths = {ws + "/a.txt", "a.txt", "sub/dir/b.txt", "../outside.txt", "/etc/hostname", ws + "/../x",
                "", "\u0000", "x".repeat(300), ws};
        String[] commands = {"ls", "echo hi", "cat a.txt", "true", "touch made.txt", "sleep 5", "rm -rf ./no-such-dir-fuzz",
                "ls; echo $(id)", "cat /etc/hostname", "git status"};
        for (int i = 0; i < n; i++) {
            if (r.nextInt(3) == 0) {
                out.add(cn.agentao.agent.testing.Script.reply().text("fine ", "" + i));
                continue;
            }
            String tool = tools[r.nextInt(tools.length)];
            String path = paths[r.nextInt(paths.length)];
            String args = switch (r.nextInt(8)) {
                case 0 -> "{";                                     // malformed JSON
                case 1 -> "[1,2]";                                 // not an object
                case 2 -> "{\"path\":" + r.nextInt() + ",\"content\":[],\"command\":{}}"; // wrong types
                case 3 -> "{\"path\":\"" + path + "\",\"content\":\"fuzz\"}";
                case 4 -> "{\"command\":\"" + commands[r.nextInt(commands.length)] + "\"}";
                case 5 -> "{\"url\":\"" + (r.nextBoolean() ? "http://127.0.0.1:9/" : "not a url") + "\"}";
                case 6 -> "{\"todos\":[{\"content\":\"t\",\"status\":\"" + (r.nextBoolean() ? "pending" : "bogus")
                        + "\",\"priority\":1}],\"question\":\"?\",\"pattern\":\"**\"}";
                default -> "{\"path\":\"" + path + "\",\"old_string\":\"a\",\"new_string\":\"b\",\"extra\":" + "[".repeat(40) + "]".repeat(40) + "}";
            };
            cn.agentao.agent.testing.Script script = cn.agentao.agent.testing.Script.reply();
            int calls = 1 + r.nextInt(2);
            for (int c = 0; c < calls; c++) script.toolCall("fz_" + i + "_" + c, tool, args, 1 + r.nextInt(3));
            out.add(script);
        }
        return out;
    }

    // ------------------------------------------------------------------ values

    private JsonNode wrongValue() {
        var f = Json.mapper().getNodeFactory();
        return switch (rnd.nextInt(18)) {
            case 0 -> f.nullNode();
            case 1 -> f.booleanNode(true);
            case 2 -> f.booleanNode(false);
            case 3 -> f.numberNode(0);
            case 4 -> f.numberNode(-1);
            case 5 -> f.numberNode(1.5);
            case 6 -> f.numberNode(Long.MAX_VALUE);
            case 7 -> f.textNode("");
            case 8 -> f.textNode(" ");
            case 9 -> f.textNode("relative/path");
            case 10 -> f.textNode("/nonexistent/" + rnd.nextInt(100));
            case 11 -> f.textNode("\u0000\u0001\u001f");
            case 12 -> f.textNode("x".repeat(rnd.nextInt(5000)));
            case 13 -> Json.mapper().createArrayNode();
            case 14 -> Json.mapper().createArrayNode().add(1).add("a").addNull();
            case 15 -> Json.object();
            case 16 -> Json.object().set("a", Json.object().set("b", Json.mapper().createArrayNode().add(Json.object())));
            default -> {
                JsonNode n = f.numberNode(1);
                for (int i = 0; i < 50; i++) n = Json.mapper().createArrayNode().add(n);
                yield n;
            }
        };
    }

    private String placeholder() {
        return "__RAW_" + (raw++) + "__";
    }

    /** Every field and element path in {@code node}, as "a/b/0/c". */
    static List<String> paths(JsonNode node) {
        List<String> out = new ArrayList<>();
        collect(node, "", out);
        return out;
    }

    private static void collect(JsonNode node, String prefix, List<String> out) {
        if (node.isObject()) {
            node.properties().forEach(e -> {
                String p = prefix.isEmpty() ? e.getKey() : prefix + "/" + e.getKey();
                out.add(p);
                collect(e.getValue(), p, out);
            });
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                String p = prefix + "/" + i;
                out.add(p);
                collect(node.get(i), p, out);
            }
        }
    }

    private static void set(ObjectNode root, String path, JsonNode value) {
        String[] parts = path.split("/");
        JsonNode parent = root;
        for (int i = 0; i < parts.length - 1; i++) parent = child(parent, parts[i]);
        String last = parts[parts.length - 1];
        if (parent instanceof ObjectNode o) o.set(last, value);
        else if (parent instanceof ArrayNode a) a.set(Integer.parseInt(last), value);
    }

    private static void remove(ObjectNode root, String path) {
        String[] parts = path.split("/");
        JsonNode parent = root;
        for (int i = 0; i < parts.length - 1; i++) parent = child(parent, parts[i]);
        String last = parts[parts.length - 1];
        if (parent instanceof ObjectNode o) o.remove(last);
        else if (parent instanceof ArrayNode a) a.remove(Integer.parseInt(last));
    }

    private static JsonNode child(JsonNode n, String part) {
        return n.isArray() ? n.get(Integer.parseInt(part)) : n.get(part);
    }

    byte[] randomBytes(int n) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (out.size() < n) {
            switch (rnd.nextInt(6)) {
                case 0 -> out.write(0); // NUL
                case 1 -> out.writeBytes(pick(new byte[] {(byte) 0xC0, (byte) 0x80}, new byte[] {(byte) 0xFF},
                        new byte[] {(byte) 0x80}, new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                        new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, new byte[] {(byte) 0xE2, (byte) 0x82})); // invalid UTF-8
                case 2 -> out.writeBytes(utf8(pick("{", "}", "[", "]", "\"", ":", ",", "\\", "\\u", "\r")));
                default -> {
                    int b = rnd.nextInt(256);
                    if (b != '\n') out.write(b);
                }
            }
        }
        return out.toByteArray();
    }

    private String randomText(int n) {
        StringBuilder sb = new StringBuilder();
        String alphabet = "{}[]\":,\\ abcjsonrpcidmethodparams0123456789-.eE\u00e9\u4e2d\ud83d\ude00\t\r";
        for (int i = 0; i < n; i++) sb.append(alphabet.charAt(rnd.nextInt(alphabet.length())));
        return sb.toString();
    }

    private String digits(int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) sb.append((char) ('0' + rnd.nextInt(10)));
        return sb.toString();
    }

    @SafeVarargs
    private <T> T pick(T... options) {
        return options[rnd.nextInt(options.length)];
    }

    private <T> T pick(List<T> options) {
        return options.get(rnd.nextInt(options.size()));
    }

    private JsonNode pickNode(JsonNode... options) {
        return options[rnd.nextInt(options.length)];
    }

    private int pick(int a, int b, int c) {
        return switch (rnd.nextInt(3)) { case 0 -> a; case 1 -> b; default -> c; };
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
