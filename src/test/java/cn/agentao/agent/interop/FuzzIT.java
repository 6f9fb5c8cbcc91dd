package cn.agentao.agent.interop;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Feeds the real agent process at least 10,000 hostile lines (see {@link HostileLines}) and checks that it never
 * dies, answers every request that has a usable id exactly once (and sends exactly one id-null error for each line
 * whose id cannot be read), keeps stdout pure JSON-RPC (each message also validated against the ACP v1 schema),
 * stays under 400 MB of RSS, never answers -32603 (an exception nobody expected), and still serves a normal
 * session afterwards. The fake model is hostile as well ({@link HostileLines#modelReplies}); the client's answers
 * to permission questions never allow anything.
 *
 * <p>Seeded: {@code -Dfuzz.seed=N} replays a run (the seed is printed and in every failure message);
 * {@code -Dfuzz.seed=random} picks one. {@code -Dfuzz.lines=N} changes the count.
 */
class FuzzIT {
    static final long DEFAULT_SEED = 20261122L;
    static final long RSS_LIMIT_KB = 400 * 1024;

    @TempDir
    Path dir;

    /** What the agent must answer to one line, derived with the agent's own JSON parser and JSON-RPC's rules. */
    sealed interface Expect {}
    /** Exactly one response carrying this id. */
    record Answer(String idKey, String method) implements Expect {}
    /** Exactly one response with id null (the id could not be read, or was null). */
    record NullAnswer() implements Expect {}
    /** No response (a notification, a stray response, a blank line). */
    record Silence() implements Expect {}

    static Expect classify(byte[] bytes) {
        int len = bytes.length;
        if (len > 0 && bytes[len - 1] == '\r') len--;
        boolean blank = true;
        for (int i = 0; i < len; i++) if (bytes[i] != ' ' && bytes[i] != '\t' && bytes[i] != '\r') { blank = false; break; }
        if (blank) return new Silence();
        JsonNode msg;
        try {
            msg = Json.mapper().readTree(bytes, 0, len);
        } catch (IOException | RuntimeException e) {
            return new NullAnswer(); // parse error
        }
        if (msg == null || msg.isMissingNode() || !msg.isObject()) return new NullAnswer();
        boolean hasId = msg.has("id");
        JsonNode id = msg.get("id");
        boolean idUsable = hasId && (id.isTextual() || id.isIntegralNumber());
        JsonNode method = msg.get("method");
        if (method == null && (msg.has("result") || msg.has("error"))) return new Silence(); // a response to us
        if (idUsable) return new Answer(id.toString(), method != null && method.isTextual() ? method.textValue() : "(invalid)");
        if (hasId) return new NullAnswer(); // id null, or of a type no response can carry
        boolean wellFormed = "2.0".equals(msg.path("jsonrpc").textValue()) && method != null && method.isTextual();
        return wellFormed ? new Silence() : new NullAnswer(); // a notification; an unreadable one is an Invalid Request
    }

    static long seed() {
        String s = System.getProperty("fuzz.seed");
        if (s == null || s.isBlank()) return DEFAULT_SEED;
        if (s.equals("random")) return System.nanoTime() ^ System.currentTimeMillis();
        return Long.parseLong(s);
    }

    static long vmRssKb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        } catch (IOException | NumberFormatException e) {
            // process gone
        }
        return -1;
    }

    @Test
    void survivesTenThousandHostileLines() throws Exception {
        long seed = seed();
        int count = Integer.getInteger("fuzz.lines", 10_000);
        String tag = "[fuzz seed " + seed + "] ";
        System.out.println(tag + "replay with -Dfuzz.seed=" + seed);
        Interop.ensureInstalled();

        Path ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
        try (FakeModelServer model = FakeModelServer.start()) {
            model.whenEmpty(Script.reply().text("o", "k"));
            // the model is hostile too: odd tool calls (never destructive, see HostileLines.modelReplies)
            HostileLines.modelReplies(seed, ws.toString(), 300).forEach(model::enqueue);
            Map<String, String> env = new HashMap<>(model.openAiEnvironment());
            env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
            env.put("AGENT_MAX_MODEL_CALLS", "4");
            try (AgentProcess agent = AgentProcess.start(env, "--acp")) {
                answerClientRequestsWithoutEverAllowing(agent, seed);
                long pid = agent.process().pid();
                AtomicLong maxRss = new AtomicLong();
                AtomicBoolean sampling = new AtomicBoolean(true);
                Thread sampler = Thread.ofPlatform().daemon().start(() -> {
                    while (sampling.get()) {
                        long kb = vmRssKb(pid);
                        if (kb > 0) maxRss.accumulateAndGet(kb, Math::max);
                        try {
                            Thread.sleep(50);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                });

                OutputStream stdin = agent.process().getOutputStream();
                List<byte[]> sent = new ArrayList<>();
                Map<String, Integer> kinds = new TreeMap<>();
                // before the handshake: session methods are refused, not crashed on
                for (String m : List.of("session/new", "session/list", "session/prompt", "_agentao.cn/set_model")) {
                    sent.add(HostileLines.utf8(HostileLines.envelope("pre-" + m, m, Json.object()).toString()));
                }
                sent.add(HostileLines.utf8("{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":1,\"clientCapabilities\":{}}}"));
                synchronized (agent) {
                    for (byte[] b : sent) writeLine(stdin, b);
                    stdin.flush();
                }
                agent.await(m -> "\"init\"".equals(m.path("id").toString()), Duration.ofSeconds(20));

                // a few live sessions for the fuzz to aim at
                List<String> sessions = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    ObjectNode p = Json.object().put("cwd", ws.toString());
                    p.putArray("mcpServers");
                    String id = "setup-" + i;
                    byte[] b = HostileLines.utf8(HostileLines.envelope(id, "session/new", p).toString());
                    sent.add(b);
                    synchronized (agent) {
                        writeLine(stdin, b);
                        stdin.flush();
                    }
                    JsonNode r = agent.await(m -> ("\"" + id + "\"").equals(m.path("id").toString()), Duration.ofSeconds(20));
                    assertTrue(r.has("result"), tag + r);
                    sessions.add(r.path("result").path("sessionId").asText());
                }

                HostileLines gen = new HostileLines(seed, ws.toString(), sessions);
                long t0 = System.nanoTime();
                int batch = 250;
                ByteArrayOutputStream buf = new ByteArrayOutputStream();
                for (int i = 0; i < count; i++) {
                    HostileLines.Line line = gen.next();
                    sent.add(line.bytes());
                    kinds.merge(line.kind().split(" ", 2)[0], 1, Integer::sum);
                    buf.writeBytes(line.bytes());
                    buf.write('\n');
                    if ((i + 1) % batch == 0 || i == count - 1) {
                        synchronized (agent) { // the client handlers answer the agent through the same pipe
                            stdin.write(buf.toByteArray());
                            stdin.flush();
                        }
                        buf.reset();
                        assertTrue(agent.process().isAlive(), tag + "the agent died after line " + i + "\nstderr:\n" + Interop.tail(agent.stderr()));
                    }
                }
                long writeMs = (System.nanoTime() - t0) / 1_000_000;

                // what must come back
                Map<String, String> expected = new LinkedHashMap<>();
                Map<String, byte[]> lineOf = new HashMap<>();
                int expectedNull = 0;
                for (byte[] b : sent) {
                    switch (classify(b)) {
                        case Answer a -> {
                            assertNull(expected.put(a.idKey(), a.method()), tag + "generator reused id " + a.idKey());
                            lineOf.put(a.idKey(), b);
                        }
                        case NullAnswer n -> expectedNull++;
                        case Silence s -> { }
                    }
                }
                Map<String, Integer> answered = new HashMap<>();
                long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
                while (System.nanoTime() < deadline) {
                    answered = countAnswers(agent.messages());
                    if (answered.keySet().containsAll(expected.keySet())) break;
                    Thread.sleep(100);
                }
                Thread.sleep(500); // late duplicates
                List<JsonNode> messages = agent.messages();
                answered = countAnswers(messages);
                long doneMs = (System.nanoTime() - t0) / 1_000_000;

                assertTrue(agent.process().isAlive(), tag + "the agent died\nstderr:\n" + Interop.tail(agent.stderr()));
                assertEquals(List.of(), agent.violations(), tag + "stdout lines that are not JSON-RPC messages");

                List<String> missing = new ArrayList<>();
                List<String> duplicated = new ArrayList<>();
                List<String> unexpected = new ArrayList<>();
                for (Map.Entry<String, String> e : expected.entrySet()) {
                    int n = answered.getOrDefault(e.getKey(), 0);
                    if (n == 0) missing.add(clip(e.getKey()) + " (" + e.getValue() + ")");
                    if (n > 1) duplicated.add(clip(e.getKey()) + " x" + n + " (" + e.getValue() + ")");
                }
                for (String id : answered.keySet()) if (!id.equals("null") && !expected.containsKey(id)) unexpected.add(clip(id));
                assertEquals(List.of(), missing, tag + "requests never answered");
                assertEquals(List.of(), duplicated, tag + "requests answered more than once");
                assertEquals(List.of(), unexpected, tag + "answers to ids nobody used");
                assertEquals(expectedNull, answered.getOrDefault("null", 0), tag + "id-null answers (one per line whose id cannot be read)");

                // how deep the fuzz got: answers by outcome
                Map<String, Integer> outcomes = new TreeMap<>();
                for (JsonNode m : messages) {
                    if (m.has("method") || !m.has("id")) continue;
                    String method = expected.getOrDefault(m.get("id").toString(), "?");
                    String outcome = m.has("error") ? String.valueOf(m.path("error").path("code").asInt())
                            : m.path("result").has("stopReason") ? m.path("result").path("stopReason").asText() : "ok";
                    outcomes.merge(method + " " + outcome, 1, Integer::sum);
                }
                System.out.println(tag + "answers: " + outcomes);
                // an internal error is an exception nobody expected: name the line that caused it
                List<String> internal = new ArrayList<>();
                for (JsonNode m : messages) {
                    if (m.path("error").path("code").asInt() != -32603) continue;
                    byte[] line = lineOf.get(m.get("id").toString());
                    internal.add(m.path("error").path("message").asText() + " <- "
                            + (line == null ? "(id " + m.get("id") + ")" : clip(new String(line, StandardCharsets.UTF_8), 400)));
                }
                assertEquals(List.of(), internal, tag + "internal errors (-32603)");
                assertTrue(outcomes.getOrDefault("session/prompt end_turn", 0) + outcomes.getOrDefault("session/prompt cancelled", 0) >= 10,
                        tag + "too few prompts reached the model: " + outcomes);

                sampling.set(false);
                sampler.join(1000);
                long rss = maxRss.get();
                System.out.println(tag + count + " lines (" + kinds + ") written in " + writeMs + " ms, all answered after "
                        + doneMs + " ms; " + expected.size() + " requests with ids, " + expectedNull
                        + " id-null errors; max RSS " + rss / 1024 + " MB");
                assertTrue(rss > 0 && rss < RSS_LIMIT_KB, tag + "max RSS " + rss / 1024 + " MB");

                validateAgainstSchema(sent, agent.stdoutLines(), tag);
                // nothing was ever allowed: a command that needs a yes never ran, nothing landed outside the workspace
                assertFalse(Files.exists(ws.resolve("made.txt")), tag + "a command that asks ran without a yes");
                assertFalse(Files.exists(dir.resolve("outside.txt")), tag + "a write outside the workspace happened");
                long toolCalls = messages.stream().filter(m -> "tool_call".equals(m.path("params").path("update").path("sessionUpdate").asText())).count();
                long asked = messages.stream().filter(m -> "session/request_permission".equals(m.path("method").asText())).count();
                System.out.println(tag + toolCalls + " tool calls from the fuzzed model, " + asked + " permission questions");
                List<String> errors = agent.stderr().lines().filter(l -> l.contains("ERROR") || l.contains("WARN") || l.contains("Exception"))
                        .filter(l -> !l.contains("dropping a response with unknown id")).limit(60).toList();
                System.out.println(tag + "agent log errors:\n" + String.join("\n", errors));

                // and a normal session still works
                model.reset();
                model.whenEmptyFail();
                model.enqueue(Script.reply().text("still ", "alive"));
                ObjectNode p = Json.object().put("cwd", ws.toString());
                p.putArray("mcpServers");
                JsonNode created = agent.call("session/new", p);
                assertTrue(created.has("result"), tag + created);
                String sid = created.path("result").path("sessionId").asText();
                ObjectNode prompt = Json.object().put("sessionId", sid);
                prompt.putArray("prompt").addObject().put("type", "text").put("text", "are you ok?");
                JsonNode r = agent.call("session/prompt", prompt, Duration.ofSeconds(30));
                assertEquals("end_turn", r.path("result").path("stopReason").asText(), tag + r);
                String text = agent.updates(sid).stream().filter(u -> "agent_message_chunk".equals(u.path("sessionUpdate").asText()))
                        .map(u -> u.path("content").path("text").asText()).reduce("", String::concat);
                assertEquals("still alive", text, tag);
                assertTrue(agent.process().isAlive(), tag);
                agent.closeStdin();
                assertEquals(0, agent.awaitExit(Duration.ofSeconds(15)), tag + "exit code after stdin EOF");
            }
        }
    }

    /**
     * The agent's questions to the client get odd but well-formed answers, never a yes: no tool the fuzzed model asks
     * for runs unless the permission engine lets it run without asking. fs and terminal requests (the fuzzed
     * initialize may advertise them) are refused or answered without touching the disk.
     */
    private static void answerClientRequestsWithoutEverAllowing(AgentProcess agent, long seed) {
        Random r = new Random(seed ^ 0xC0FFEE);
        java.util.function.Supplier<Integer> roll = () -> { synchronized (r) { return r.nextInt(5); } };
        agent.onClientRequest("session/request_permission", p -> switch (roll.get()) {
            case 0 -> Json.object().set("outcome", Json.object().put("outcome", "cancelled"));
            case 1 -> Json.object().set("outcome", Json.object().put("outcome", "selected").put("optionId", "no-such-option"));
            case 2 -> Json.object().put("outcome", "allow_once"); // malformed: must count as a rejection
            case 3 -> null; // an error answer
            default -> Json.object().set("outcome", Json.object().put("outcome", "selected").put("optionId", "reject_once"));
        });
        agent.onClientRequest("_agentao.cn/ask_user", p -> switch (roll.get()) {
            case 0 -> Json.object().put("outcome", "answered").put("text", "fuzz answer");
            case 1 -> Json.object().put("outcome", "cancelled");
            case 2 -> Json.object().put("outcome", 7);
            default -> null;
        });
        agent.onClientRequest("fs/read_text_file", p -> roll.get() < 2 ? Json.object().put("content", "fuzz\n") : null);
        agent.onClientRequest("fs/write_text_file", p -> roll.get() < 2 ? Json.object() : null); // never written
        for (String m : List.of("terminal/create", "terminal/output", "terminal/wait_for_exit", "terminal/kill", "terminal/release")) {
            agent.onClientRequest(m, p -> null);
        }
    }

    private static void writeLine(OutputStream out, byte[] b) throws IOException {
        out.write(b);
        out.write('\n');
    }

    /** Responses (no method) by id text; "null" counts id-null answers. */
    private static Map<String, Integer> countAnswers(List<JsonNode> messages) {
        Map<String, Integer> n = new HashMap<>();
        for (JsonNode m : messages) {
            if (m.has("method") || !m.has("id")) continue;
            n.merge(m.get("id").toString(), 1, Integer::sum);
        }
        return n;
    }

    private static String clip(String s) {
        return clip(s, 80);
    }

    private static String clip(String s, int max) {
        return s.length() > max ? s.substring(0, max) + "…(" + s.length() + ")" : s;
    }

    /**
     * Every message the agent wrote, with the requests they answer, through interop/validate-transcript.mjs
     * --directed (the ACP SDK's schema). Ids that JavaScript cannot hold exactly (beyond 2^53) are left out.
     */
    private void validateAgainstSchema(List<byte[]> sent, List<String> received, String tag) throws Exception {
        ByteArrayOutputStream sb = new ByteArrayOutputStream();
        for (byte[] b : sent) {
            if (!(classify(b) instanceof Answer) && !(classify(b) instanceof NullAnswer)) continue;
            JsonNode msg;
            try {
                msg = Json.mapper().readTree(b);
            } catch (IOException | RuntimeException e) {
                continue;
            }
            if (msg == null || !msg.isObject() || !msg.has("id") || !jsSafe(msg.get("id"))) continue;
            ObjectNode in = Json.object().put("jsonrpc", "2.0");
            in.set("id", msg.get("id"));
            in.put("method", msg.path("method").isTextual() ? msg.path("method").textValue() : "(invalid)");
            ObjectNode entry = Json.object().put("dir", "in");
            entry.set("msg", in);
            sb.writeBytes(Json.mapper().writeValueAsBytes(entry));
            sb.write('\n');
        }
        int checked = 0;
        for (String line : received) { // the agent's exact stdout lines
            JsonNode m = Json.mapper().readTree(line);
            if (m.has("id") && !jsSafe(m.get("id"))) continue;
            // as UTF-8 bytes: Jackson's byte generator escapes what UTF-8 cannot carry (lone surrogates from \uD800 input)
            sb.writeBytes(Json.mapper().writeValueAsBytes(Json.object().put("dir", "out").put("line", line)));
            sb.write('\n');
            checked++;
        }
        Path file = dir.resolve("fuzz-transcript.jsonl");
        Files.write(file, sb.toByteArray());
        Interop.Result v = Interop.run(Interop.node("validate-transcript.mjs", "--directed", file.toString()), Map.of(),
                dir, Duration.ofSeconds(60));
        assertEquals(0, v.exitCode(), tag + "schema check of " + checked + " agent messages:\n" + Interop.tail(v.stdout()) + v.stderr());
        JsonNode summary = Json.mapper().readTree(v.stdout());
        System.out.println(tag + "schema-checked " + summary.path("agentMessages").asInt() + " agent messages: " + summary.path("counts"));
        assertEquals(checked, summary.path("agentMessages").asInt(), tag + "every message reached the schema check");
    }

    private static boolean jsSafe(JsonNode id) {
        if (id.isTextual() || id.isNull()) return true;
        return id.isIntegralNumber() && id.canConvertToLong() && Math.abs(id.longValue()) < (1L << 53);
    }
}
