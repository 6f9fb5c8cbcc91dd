package cn.agentao.agent.interop;

import cn.agentao.agent.door.a2a.A2aServerProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code agent a2a serve} cannot be driven by a web page (issue #27): raw HTTP, so that the test, like an attacker's
 * page, chooses Host, Origin and Content-Type. Each refusal is checked by its absent side effect: the command the
 * scripted model would run did not run (nothing reached the model), the permission question was not answered.
 */
class A2aDoorSecurityIT {
    static final String TOKEN = "a2a-door-token-93c4";

    @TempDir
    Path dir;
    FakeModelServer model;
    Path ws;
    Path outside;

    @BeforeEach
    void start() throws Exception {
        model = FakeModelServer.start();
        ws = Files.createDirectories(dir.resolve("ws")).toRealPath();
        outside = Files.createDirectories(dir.resolve("outside")).toRealPath();
        model.when(FakeModelServer.lastUserMessageContains("PWN")).reply(Script.reply().toolCall("s1", "run_shell_command",
                Json.object().put("command", "touch " + ws.resolve("pwned")).toString()), Script.textReply("done"));
        model.when(FakeModelServer.lastUserMessageContains("WRITE-OUTSIDE")).reply(Script.reply().toolCall("w1", "write_file",
                Json.object().put("path", outside.resolve("answered.txt").toString()).put("content", "x").toString()), Script.textReply("done"));
    }

    @AfterEach
    void stop() {
        model.close();
    }

    private A2aServerProcess serve(String... args) throws IOException {
        Map<String, String> env = Interop.agentEnvironment(model.openAiEnvironment(), dir);
        env.put("A2A_TOKEN", TOKEN);
        String[] all = new String[args.length + 2];
        all[0] = "--cwd";
        all[1] = ws.toString();
        System.arraycopy(args, 0, all, 2, args.length);
        return A2aServerProcess.start(env, ws, all);
    }

    @Test
    void theAttackersRequestIsRefusedAndNoCommandRuns() throws Exception {
        try (A2aServerProcess server = serve("--mode", "full-access")) {
            int port = URI.create(server.url()).getPort();
            String right = "127.0.0.1:" + port;
            // the request, as a page at evil.example sends it (DNS rebinding or a plain cross-site form/fetch)
            Response attack = post(port, "evil.example:" + port, "http://evil.example", "text/plain;charset=UTF-8", send("PWN now"));
            assertEquals(421, attack.status, attack.toString());
            // right Host, but a browser's Origin: a page (or a rebound one that got the Host right) is refused
            Response rebound = post(port, right, "http://evil.example", "application/json", send("PWN now"));
            assertEquals(403, rebound.status, rebound.toString());
            assertNull(rebound.header("access-control-allow-origin"), "no CORS headers for a refused origin");
            // no Origin (a no-cors request from a page whose browser leaves it out), but a "simple" content type
            Response simple = post(port, right, null, "text/plain", send("PWN now"));
            assertEquals(415, simple.status, simple.toString());
            Response form = post(port, right, null, "application/x-www-form-urlencoded", send("PWN now"));
            assertEquals(415, form.status, form.toString());
            Response fetchMetadata = request(port, "POST", "/", Map.of("Host", right, "Sec-Fetch-Site", "cross-site",
                    "Content-Type", "application/json"), send("PWN now"));
            assertEquals(403, fetchMetadata.status, fetchMetadata.toString());

            assertFalse(Files.exists(ws.resolve("pwned")), "no command ran");
            assertTrue(model.requests().isEmpty(), "nothing reached the agent: " + model.requests().size() + " model calls");

            // the same message from a local program (the right Host, no Origin, JSON) runs: the refusals above were the guard's
            Response local = post(port, right, null, "application/json; charset=utf-8", send("PWN now"));
            assertEquals(200, local.status, local.toString());
            assertEquals("completed", local.json().path("result").path("status").path("state").asText(), local.toString());
            assertTrue(Files.exists(ws.resolve("pwned")), "the local caller's command ran");
            assertNull(local.header("access-control-allow-origin"), "no CORS headers when no origin is allowed");
        }
    }

    @Test
    void aCallerNeitherSeesNorIsOfferedTheUsersMemory() throws Exception {
        Path config = Files.createDirectories(dir.resolve("config/agent"));
        Files.writeString(config.resolve("memory.md"), "- USER-FACT my bank is Example Bank\n");
        Path project = new cn.agentao.agent.memory.Memory(config).file(cn.agentao.agent.memory.Memory.Scope.PROJECT, ws);
        Files.createDirectories(project.getParent());
        Files.writeString(project, "- PROJECT-FACT the staging host is db7\n");
        model.enqueue(Script.textReply("hi"));
        try (A2aServerProcess server = serve()) {
            int port = URI.create(server.url()).getPort();
            Response r = post(port, "127.0.0.1:" + port, null, "application/json", send("hello"));
            assertEquals(200, r.status, r.toString());
        }
        String body = model.requests().getFirst().rawBody();
        assertFalse(body.contains("USER-FACT") || body.contains("PROJECT-FACT"), "no memory in an A2A caller's prompt: " + body);
        assertFalse(body.contains("\"save_memory\""), "save_memory is not offered to a caller");
    }

    @Test
    void aRebindingPageCannotReadTheTaskNorAnswerItsQuestion() throws Exception {
        try (A2aServerProcess server = serve()) {
            int port = URI.create(server.url()).getPort();
            String right = "localhost:" + port;
            Response started = post(port, right, null, "application/json", send("WRITE-OUTSIDE please"));
            JsonNode task = started.json().path("result");
            assertEquals("input-required", task.path("status").path("state").asText(), started.toString());
            String taskId = task.path("id").asText();

            // after rebinding evil.example to 127.0.0.1, the page's requests name evil.example (and its Origin)
            String evil = "evil.example:" + port;
            assertEquals(421, request(port, "GET", "/.well-known/agent-card.json", Map.of("Host", evil), null).status, "the card");
            assertEquals(421, post(port, evil, "http://" + evil, "application/json", rpc("tasks/get", Json.object().put("id", taskId))).status);
            assertEquals(421, post(port, evil, "http://" + evil, "application/json", answer(taskId, "yes")).status);
            assertEquals(421, post(port, evil, null, "application/json", answer(taskId, "yes")).status);
            // a page that somehow names the right Host still carries its Origin
            assertEquals(403, post(port, right, "http://" + evil, "application/json", answer(taskId, "yes")).status);
            assertEquals(403, post(port, right, "null", "application/json", answer(taskId, "yes")).status, "a sandboxed page's Origin: null");
            assertEquals(403, request(port, "GET", "/.well-known/agent-card.json", Map.of("Host", right, "Origin", "http://" + evil), null).status,
                    "a page cannot read the card either");

            Response now = post(port, right, null, "application/json", rpc("tasks/get", Json.object().put("id", taskId)));
            assertEquals("input-required", now.json().path("result").path("status").path("state").asText(), "the question is still open: " + now);
            assertFalse(Files.exists(outside.resolve("answered.txt")), "no answer got through: nothing written outside");

            Response no = post(port, right, null, "application/json", answer(taskId, "no"));
            assertEquals(200, no.status, no.toString());
            assertFalse(Files.exists(outside.resolve("answered.txt")));
            assertEquals(200, request(port, "GET", "/.well-known/agent-card.json", Map.of("Host", "[::1]:" + port), null).status,
                    "every loopback name of the server is its own");
        }
    }

    @Test
    void withATokenOnlyItsHolderAnswersAQuestion() throws Exception {
        try (A2aServerProcess server = serve("--token-env", "A2A_TOKEN")) {
            int port = URI.create(server.url()).getPort();
            String right = "127.0.0.1:" + port;
            Response started = request(port, "POST", "/", Map.of("Host", right, "Content-Type", "application/json",
                    "Authorization", "Bearer " + TOKEN), send("WRITE-OUTSIDE please"));
            String taskId = started.json().path("result").path("id").asText();
            assertEquals("input-required", started.json().path("result").path("status").path("state").asText(), started.toString());

            assertEquals(401, post(port, right, null, "application/json", answer(taskId, "yes")).status, "no token");
            assertEquals(401, request(port, "POST", "/", Map.of("Host", right, "Content-Type", "application/json",
                    "Authorization", "Bearer not-" + TOKEN), answer(taskId, "yes")).status, "a wrong token");
            Response now = request(port, "POST", "/", Map.of("Host", right, "Content-Type", "application/json",
                    "Authorization", "Bearer " + TOKEN), rpc("tasks/get", Json.object().put("id", taskId)));
            assertEquals("input-required", now.json().path("result").path("status").path("state").asText(), now.toString());
            assertFalse(Files.exists(outside.resolve("answered.txt")), "nothing written outside");

            Response yes = request(port, "POST", "/", Map.of("Host", right, "Content-Type", "application/json",
                    "Authorization", "Bearer " + TOKEN), answer(taskId, "yes"));
            assertEquals("completed", yes.json().path("result").path("status").path("state").asText(), yes.toString());
            assertTrue(Files.exists(outside.resolve("answered.txt")), "the token holder's answer counted");
        }
    }

    @Test
    void anAllowedOriginGetsCorsAndOthersNone() throws Exception {
        try (A2aServerProcess server = serve("--allowed-origin", "http://localhost:3000", "--allowed-host", "agent.proxy.example")) {
            int port = URI.create(server.url()).getPort();
            String right = "127.0.0.1:" + port;
            Response preflight = request(port, "OPTIONS", "/", Map.of("Host", right, "Origin", "http://localhost:3000",
                    "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type"), null);
            assertEquals(204, preflight.status, preflight.toString());
            assertEquals("http://localhost:3000", preflight.header("access-control-allow-origin"));
            assertTrue(preflight.header("access-control-allow-methods").contains("POST"), preflight.toString());
            assertTrue(preflight.header("access-control-allow-headers").toLowerCase(Locale.ROOT).contains("content-type"), preflight.toString());
            assertTrue(preflight.header("vary").contains("Origin"), preflight.toString());

            Response allowed = post(port, right, "http://localhost:3000", "application/json", rpc("tasks/get", Json.object().put("id", "none")));
            assertEquals(200, allowed.status, allowed.toString());
            assertEquals(-32001, allowed.json().path("error").path("code").asInt(), allowed.toString());
            assertEquals("http://localhost:3000", allowed.header("access-control-allow-origin"));

            Response otherPreflight = request(port, "OPTIONS", "/", Map.of("Host", right, "Origin", "http://localhost:3001",
                    "Access-Control-Request-Method", "POST"), null);
            assertEquals(403, otherPreflight.status, otherPreflight.toString());
            assertNull(otherPreflight.header("access-control-allow-origin"));

            assertEquals(200, request(port, "GET", "/.well-known/agent-card.json", Map.of("Host", "agent.proxy.example"), null).status,
                    "--allowed-host: a reverse proxy's name");
            assertEquals(421, request(port, "GET", "/.well-known/agent-card.json", Map.of("Host", "other.proxy.example"), null).status);
            assertEquals(421, request(port, "GET", "/.well-known/agent-card.json", Map.of("Host", "127.0.0.1:" + (port == 1 ? 2 : port - 1)), null).status,
                    "another port");
            Response noHost = raw(port, "GET /.well-known/agent-card.json HTTP/1.0\r\n\r\n", null);
            assertEquals(400, noHost.status, "HTTP/1.0 without a Host header: " + noHost);
        }
    }

    @Test
    void aBadAllowedOriginIsRefusedAtStart() throws Exception {
        A2aServerProcess server = serve("--allowed-origin", "http://localhost:3000/app");
        assertTrue(server.process().waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(2, server.process().exitValue());
        Thread.sleep(200); // the reader thread may still be appending the last line
        assertTrue(server.stderr().contains("--allowed-origin http://localhost:3000/app is not an origin"), server.stderr());
    }

    // ---------------------------------------------------------------- raw HTTP

    record Response(int status, Map<String, String> headers, String body) {
        String header(String name) { return headers.get(name); }

        JsonNode json() throws IOException { return Json.mapper().readTree(body); }
    }

    private static String send(String text) {
        ObjectNode message = Json.object().put("kind", "message").put("messageId", UUID.randomUUID().toString()).put("role", "user");
        message.putArray("parts").addObject().put("kind", "text").put("text", text);
        ObjectNode params = Json.object();
        params.set("message", message);
        return rpc("message/send", params);
    }

    private static String answer(String taskId, String text) {
        ObjectNode message = Json.object().put("kind", "message").put("messageId", UUID.randomUUID().toString()).put("role", "user")
                .put("taskId", taskId);
        message.putArray("parts").addObject().put("kind", "text").put("text", text);
        ObjectNode params = Json.object();
        params.set("message", message);
        return rpc("message/send", params);
    }

    private static String rpc(String method, ObjectNode params) {
        ObjectNode rq = Json.object().put("jsonrpc", "2.0").put("id", 1).put("method", method);
        rq.set("params", params);
        return rq.toString();
    }

    private static Response post(int port, String host, String origin, String contentType, String body) throws IOException {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Host", host);
        if (origin != null) headers.put("Origin", origin);
        headers.put("Content-Type", contentType);
        return request(port, "POST", "/", headers, body);
    }

    static Response request(int port, String method, String path, Map<String, String> headers, String body) throws IOException {
        StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
        headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
        head.append("Connection: close\r\n");
        byte[] bytes = body == null ? null : body.getBytes(StandardCharsets.UTF_8);
        if (bytes != null) head.append("Content-Length: ").append(bytes.length).append("\r\n");
        head.append("\r\n");
        return raw(port, head.toString(), bytes);
    }

    /** Sends the request as written and reads the whole answer (the connection closes after it). */
    private static Response raw(int port, String head, byte[] body) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(120_000);
            OutputStream out = s.getOutputStream();
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            if (body != null) out.write(body);
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            in.transferTo(all);
            String text = all.toString(StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            String[] lines = text.substring(0, end).split("\r\n");
            int status = Integer.parseInt(lines[0].split(" ")[1]);
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                headers.merge(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip(),
                        (a, b) -> a + ", " + b);
            }
            String rest = text.substring(end + 4);
            if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) rest = unchunk(rest);
            return new Response(status, headers, new String(rest.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8));
        }
    }

    private static String unchunk(String s) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < s.length()) {
            int eol = s.indexOf("\r\n", i);
            if (eol < 0) break;
            int size = Integer.parseInt(s.substring(i, eol).split(";")[0].strip(), 16);
            if (size == 0) break;
            out.append(s, eol + 2, eol + 2 + size);
            i = eol + 2 + size + 2;
        }
        return out.toString();
    }
}
