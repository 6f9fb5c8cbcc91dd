package cn.agentao.agent.door.acp;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.testing.AgentProcess;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.*;

/** The real bin/agent over pipes: framing, initialize, session setup and settings, as Agentao behaves. */
class AcpProtocolIT {
    @TempDir
    Path dir;
    AgentProcess agent;

    @BeforeEach
    void start() throws Exception {
        agent = AgentProcess.start(Map.of("OPENAI_API_KEY", "test-key-not-real", "OPENAI_MODEL", "fake-model"), "--acp");
    }

    @AfterEach
    void stop() {
        try {
            assertEquals(List.of(), agent.violations(), "stdout must hold only JSON-RPC lines");
            assertFalse(agent.stderr().contains("test-key-not-real"), "the API key must never be logged");
        } finally {
            agent.close();
        }
    }

    private JsonNode initialize() throws Exception {
        JsonNode r = agent.call("initialize", obj("{\"protocolVersion\":1,\"clientCapabilities\":{}}"));
        assertTrue(r.has("result"), r.toString());
        return r.path("result");
    }

    private static ObjectNode obj(String json) {
        try {
            return (ObjectNode) Json.mapper().readTree(json);
        } catch (Exception e) {
            throw new IllegalArgumentException(json, e);
        }
    }

    private ObjectNode newSessionParams() {
        return Json.object().put("cwd", dir.toString()).set("mcpServers", Json.mapper().createArrayNode());
    }

    private String newSession() throws Exception {
        JsonNode r = agent.call("session/new", newSessionParams());
        assertTrue(r.has("result"), r.toString());
        return r.path("result").path("sessionId").asText();
    }

    static void assertError(JsonNode response, int code, String messagePart) {
        assertTrue(response.has("error"), "expected an error, got " + response);
        assertEquals(code, response.path("error").path("code").asInt(), response.toString());
        if (messagePart != null) {
            assertTrue(response.path("error").path("message").asText().contains(messagePart),
                    "message should mention '" + messagePart + "': " + response);
        }
    }

    /** The next response from the agent, whatever its id. */
    private JsonNode nextResponse() throws InterruptedException {
        return agent.await(m -> !m.has("method"), Duration.ofSeconds(30));
    }

    // ------------------------------------------------------------------ framing

    @Test
    void badJsonIsAParseErrorWithNullId() throws Exception {
        agent.sendRaw("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":");
        JsonNode r = nextResponse();
        assertError(r, -32700, "Parse error");
        assertTrue(r.has("id") && r.get("id").isNull(), r.toString());
    }

    @Test
    void nonObjectsAreInvalidRequestsWithNullId() throws Exception {
        for (String line : List.of("[1,2]", "42", "\"text\"", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}]")) {
            agent.sendRaw(line);
            JsonNode r = nextResponse();
            assertError(r, -32600, null);
            assertTrue(r.get("id").isNull(), r.toString());
        }
    }

    @Test
    void wrongOrMissingJsonrpcVersionEchoesTheId() throws Exception {
        agent.sendRaw("{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}");
        JsonNode r = nextResponse();
        assertError(r, -32600, "jsonrpc");
        assertEquals(7, r.get("id").asInt());
        agent.sendRaw("{\"id\":\"abc\",\"method\":\"initialize\"}");
        r = nextResponse();
        assertError(r, -32600, "jsonrpc");
        assertEquals("abc", r.get("id").asText());
    }

    @Test
    void envelopeWithoutMethodOrResultIsInvalid() throws Exception {
        agent.sendRaw("{\"jsonrpc\":\"2.0\",\"id\":3}");
        assertError(nextResponse(), -32600, "method");
        agent.sendRaw("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":12}");
        assertError(nextResponse(), -32600, "method");
        agent.sendRaw("{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"initialize\"}");
        JsonNode r = nextResponse();
        assertError(r, -32600, "id");
        assertTrue(r.get("id").isNull());
    }

    @Test
    void unknownMethodIsMethodNotFoundButUnknownNotificationIsIgnored() throws Exception {
        initialize();
        agent.sendRaw("{\"jsonrpc\":\"2.0\",\"method\":\"no/such/notification\",\"params\":{}}");
        agent.sendRaw("{\"jsonrpc\":\"2.0\",\"method\":\"session/cancel\",\"params\":{\"sessionId\":\"nope\"}}");
        JsonNode r = agent.call("no/such/method", Json.object());
        assertError(r, -32601, "no/such/method");
        // nothing but that one response came back for the three messages
        long responses = agent.messages().stream().filter(m -> !m.has("method")).count();
        assertEquals(2, responses, agent.messages().toString());
    }

    @Test
    void responsesToUnknownIdsAreDroppedAndBlankLinesIgnored() throws Exception {
        agent.sendRaw("{\"jsonrpc\":\"2.0\",\"id\":99999,\"result\":{}}");
        agent.sendRaw("");
        agent.sendRaw("   ");
        agent.sendRaw("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}\r");
        JsonNode r = nextResponse();
        assertEquals(1, r.path("id").asInt());
        assertTrue(r.has("result"), r.toString());
        assertTrue(agent.stderr().contains("unknown id"), "dropped response is logged on stderr");
    }

    @Test
    void paramsMustBeAnObject() throws Exception {
        JsonNode r = agent.call("initialize", Json.mapper().createArrayNode().add(1));
        assertError(r, -32602, "params");
    }

    @Test
    void fiftyPipelinedRequestsAreEachAnsweredExactlyOnce() throws Exception {
        StringBuilder burst = new StringBuilder();
        burst.append("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":1,\"clientCapabilities\":{}}}\n");
        for (int i = 1; i < 50; i++) {
            String m = switch (i % 5) {
                case 0 -> "{\"jsonrpc\":\"2.0\",\"id\":" + i + ",\"method\":\"session/new\",\"params\":{\"cwd\":\"" + dir + "\",\"mcpServers\":[]}}";
                case 1 -> "{\"jsonrpc\":\"2.0\",\"id\":" + i + ",\"method\":\"nope\"}";
                case 2 -> "{\"jsonrpc\":\"2.0\",\"id\":" + i + ",\"method\":\"session/new\",\"params\":{\"cwd\":\"relative\",\"mcpServers\":[]}}";
                case 3 -> "{\"jsonrpc\":\"2.0\",\"id\":" + i + ",\"method\":\"session/prompt\",\"params\":{\"sessionId\":\"x\",\"prompt\":[]}}";
                default -> "{\"jsonrpc\":\"2.0\",\"id\":" + i + ",\"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}";
            };
            burst.append(m).append('\n');
        }
        agent.sendRaw(burst.substring(0, burst.length() - 1));
        Map<Integer, Integer> answers = new HashMap<>();
        for (int i = 0; i < 50; i++) {
            JsonNode r = nextResponse();
            answers.merge(r.path("id").asInt(), 1, Integer::sum);
        }
        Thread.sleep(300);
        long responses = agent.messages().stream().filter(m -> !m.has("method")).count();
        assertEquals(50, responses);
        for (int i = 0; i < 50; i++) assertEquals(1, answers.getOrDefault(i, 0), "request " + i + " answered once");
    }

    @Test
    void veryLongLinesKeepFramingAndOversizedOnesGetAClearError() throws Exception {
        initialize();
        String big = "x".repeat(30 * 1024 * 1024);
        JsonNode r = agent.call("no/such/method", Json.object().put("blob", big), Duration.ofSeconds(30));
        assertError(r, -32601, null);
        agent.close();
        agent = AgentProcess.start(Map.of("OPENAI_API_KEY", "k"), "--acp", "--max-message-bytes", "100000");
        agent.sendRaw("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"x\":\"" + "y".repeat(200_000) + "\"}}");
        r = nextResponse();
        assertError(r, -32600, "exceeds the limit");
        JsonNode ok = agent.call("initialize", obj("{\"protocolVersion\":1}"));
        assertTrue(ok.has("result"), "the stream is still framed after an oversized line");
    }

    @Test
    void cancelRequestForAnUnknownIdIsHarmless() throws Exception {
        initialize();
        agent.notify("$/cancel_request", obj("{\"requestId\":12345}"));
        assertTrue(agent.call("initialize", obj("{\"protocolVersion\":1}")).has("result"));
    }

    // ------------------------------------------------------------------ initialize

    @Test
    void sessionMethodsBeforeInitializeAreRefused() throws Exception {
        for (String method : List.of("session/new", "session/prompt", "session/set_mode", "session/set_config_option")) {
            JsonNode r = agent.call(method, newSessionParams());
            assertError(r, -32002, method + " called before initialize handshake");
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"protocolVersion\":true}|protocolVersion",
            "{\"protocolVersion\":\"1\"}|protocolVersion",
            "{\"protocolVersion\":1.5}|protocolVersion",
            "{}|protocolVersion",
            "{\"protocolVersion\":1,\"clientCapabilities\":[]}|clientCapabilities",
            "{\"protocolVersion\":1,\"clientCapabilities\":\"all\"}|clientCapabilities",
            "{\"protocolVersion\":1,\"clientInfo\":5}|clientInfo"})
    void initializeValidatesItsParams(String params, String field) throws Exception {
        assertError(agent.call("initialize", obj(params)), -32602, field);
    }

    @Test
    void initializeNegotiatesVersionOneAndDescribesTheAgent() throws Exception {
        JsonNode r = agent.call("initialize", obj("{\"protocolVersion\":7,\"clientCapabilities\":{\"fs\":{\"readTextFile\":true}},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}"));
        JsonNode res = r.path("result");
        assertEquals(1, res.path("protocolVersion").asInt());
        assertTrue(res.path("protocolVersion").isInt());
        assertEquals("agent", res.path("agentInfo").path("name").asText());
        assertFalse(res.path("agentInfo").path("version").asText().isEmpty());
        assertTrue(res.path("agentCapabilities").path("promptCapabilities").path("image").asBoolean());
        List<String> ext = new ArrayList<>();
        res.path("_meta").path("_agentao.cn/extensions").forEach(e -> ext.add(e.path("method").asText()));
        assertTrue(ext.containsAll(List.of("_agentao.cn/set_model", "_agentao.cn/ask_user")), ext.toString());
        assertTrue(res.path("authMethods").isArray());
        assertEquals(1, agent.call("initialize", obj("{\"protocolVersion\":0}")).path("result").path("protocolVersion").asInt());
    }

    // ------------------------------------------------------------------ session/new

    @Test
    void newSessionValidatesCwd() throws Exception {
        initialize();
        Path file = Files.writeString(dir.resolve("f.txt"), "x");
        assertError(agent.call("session/new", obj("{\"mcpServers\":[]}")), -32602, "cwd");
        assertError(agent.call("session/new", obj("{\"cwd\":5,\"mcpServers\":[]}")), -32602, "cwd");
        assertError(agent.call("session/new", obj("{\"cwd\":\"rel/dir\",\"mcpServers\":[]}")), -32602, "absolute");
        assertError(agent.call("session/new", obj("{\"cwd\":\"" + dir.resolve("missing") + "\",\"mcpServers\":[]}")), -32602, "does not exist");
        assertError(agent.call("session/new", obj("{\"cwd\":\"" + file + "\",\"mcpServers\":[]}")), -32602, "not a directory");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "|mcpServers",
            "\"mcpServers\":{}|mcpServers",
            "\"mcpServers\":[5]|mcpServers[0]",
            "\"mcpServers\":[{\"command\":\"x\",\"args\":[],\"env\":[]}]|mcpServers[0].name",
            "\"mcpServers\":[{\"name\":\"\",\"command\":\"x\",\"args\":[],\"env\":[]}]|mcpServers[0].name",
            "\"mcpServers\":[{\"name\":\"a\",\"args\":[],\"env\":[]}]|mcpServers[0].command",
            "\"mcpServers\":[{\"name\":\"a\",\"command\":\"x\",\"args\":[1],\"env\":[]}]|mcpServers[0].args[0]",
            "\"mcpServers\":[{\"name\":\"a\",\"command\":\"x\",\"args\":[],\"env\":{\"K\":\"V\"}}]|mcpServers[0].env",
            "\"mcpServers\":[{\"name\":\"a\",\"command\":\"x\",\"args\":[],\"env\":[{\"name\":\"K\"}]}]|mcpServers[0].env[0].value",
            "\"mcpServers\":[{\"type\":\"http\",\"name\":\"a\",\"headers\":[]}]|mcpServers[0].url",
            "\"mcpServers\":[{\"type\":\"http\",\"name\":\"a\",\"url\":\"ftp://x\",\"headers\":[]}]|mcpServers[0].url",
            "\"mcpServers\":[{\"type\":\"sse\",\"name\":\"a\",\"url\":\"http://x\"}]|mcpServers[0].headers",
            "\"mcpServers\":[{\"type\":\"carrier-pigeon\",\"name\":\"a\"}]|mcpServers[0].type",
            "\"mcpServers\":[{\"name\":\"a\",\"command\":\"x\",\"args\":[],\"env\":[]},{\"name\":\"a\",\"command\":\"y\",\"args\":[],\"env\":[]}]|mcpServers[1].name"})
    void newSessionValidatesMcpServers(String fields, String field) throws Exception {
        initialize();
        String params = "{\"cwd\":\"" + dir + "\"" + (fields == null ? "" : "," + fields) + "}";
        assertError(agent.call("session/new", obj(params)), -32602, field);
    }

    @Test
    void newSessionAnswersIdModesAndModelPickerThenAdvertisesCommands() throws Exception {
        initialize();
        JsonNode r = agent.call("session/new", newSessionParams()).path("result");
        String id = r.path("sessionId").asText();
        assertFalse(id.isEmpty());
        assertEquals("workspace-write", r.path("modes").path("currentModeId").asText());
        List<String> modes = new ArrayList<>();
        r.path("modes").path("availableModes").forEach(m -> modes.add(m.path("id").asText()));
        assertEquals(List.of("read-only", "workspace-write", "full-access", "plan"), modes);
        JsonNode model = find(r.path("configOptions"), "model");
        assertEquals("model", model.path("category").asText());
        assertEquals("select", model.path("type").asText());
        assertEquals("openai/fake-model", model.path("currentValue").asText());
        assertEquals("mode", find(r.path("configOptions"), "mode").path("category").asText());
        JsonNode commands = agent.await(m -> "session/update".equals(m.path("method").asText())
                && "available_commands_update".equals(m.path("params").path("update").path("sessionUpdate").asText()), Duration.ofSeconds(30));
        assertEquals(id, commands.path("params").path("sessionId").asText());
        List<String> names = new ArrayList<>();
        commands.path("params").path("update").path("availableCommands").forEach(c -> names.add(c.path("name").asText()));
        assertTrue(names.containsAll(List.of("compact", "model", "mode", "help")), names.toString());
        // the advertisement came after the response: a client knows the session before its updates
        List<JsonNode> all = agent.messages();
        int responseAt = -1, updateAt = -1;
        for (int i = 0; i < all.size(); i++) {
            if (id.equals(all.get(i).path("result").path("sessionId").asText())) responseAt = i;
            if (id.equals(all.get(i).path("params").path("sessionId").asText()) && updateAt < 0) updateAt = i;
        }
        assertTrue(responseAt >= 0 && responseAt < updateAt, "response before updates");
    }

    @Test
    void withNoProviderConfiguredNewSessionAsksForAuthentication() throws Exception {
        agent.close();
        agent = AgentProcess.start(Map.of(), "--acp");
        JsonNode init = initialize();
        String help = init.path("authMethods").get(0).path("description").asText();
        assertTrue(help.contains("OPENAI_API_KEY"), help);
        JsonNode r = agent.call("session/new", newSessionParams());
        assertError(r, -32000, "OPENAI_API_KEY");
        assertError(agent.call("authenticate", obj("{\"methodId\":\"" + init.path("authMethods").get(0).path("id").asText() + "\"}")), -32000, null);
    }

    private static JsonNode find(JsonNode options, String id) {
        for (JsonNode o : options) if (id.equals(o.path("id").asText())) return o;
        throw new AssertionError("no config option " + id + " in " + options);
    }

    // ------------------------------------------------------------------ settings

    @Test
    void unknownSessionIdIsResourceNotFoundWithTheId() throws Exception {
        initialize();
        for (JsonNode r : List.of(
                agent.call("session/prompt", obj("{\"sessionId\":\"nope\",\"prompt\":[{\"type\":\"text\",\"text\":\"hi\"}]}")),
                agent.call("session/set_mode", obj("{\"sessionId\":\"nope\",\"modeId\":\"plan\"}")),
                agent.call("session/set_config_option", obj("{\"sessionId\":\"nope\",\"configId\":\"model\",\"value\":\"x\"}")),
                agent.call("session/cancel", obj("{\"sessionId\":\"nope\"}")),
                agent.call("session/close", obj("{\"sessionId\":\"nope\"}")),
                agent.call("session/delete", obj("{\"sessionId\":\"nope\"}")),
                agent.call("session/load", newSessionParams().put("sessionId", "nope")),
                agent.call("session/resume", newSessionParams().put("sessionId", "nope")))) {
            assertError(r, -32002, "unknown sessionId: nope"); // ACP's "resource not found", as the registry's probe expects
            assertEquals("nope", r.path("error").path("data").path("sessionId").asText(), r.toString());
        }
    }

    @Test
    void setConfigOptionAcceptsOnlyItsThreeKeys() throws Exception {
        initialize();
        String id = newSession();
        for (String extra : List.of("\"apiKey\":\"sk-1\"", "\"baseUrl\":\"http://evil\"", "\"_meta\":{}", "\"other\":1")) {
            JsonNode r = agent.call("session/set_config_option", obj("{\"sessionId\":\"" + id + "\",\"configId\":\"model\",\"value\":\"openai/x\"," + extra + "}"));
            assertError(r, -32602, extra.substring(1, extra.indexOf('"', 1)));
        }
        assertError(agent.call("session/set_config_option", obj("{\"sessionId\":\"" + id + "\",\"configId\":\"temperature\",\"value\":\"1\"}")), -32600, "temperature");
        assertError(agent.call("session/set_config_option", obj("{\"sessionId\":\"" + id + "\",\"configId\":\"model\",\"value\":\"nosuch/model\"}")), -32600, "cannot resolve provider 'nosuch'");
        assertError(agent.call("session/set_config_option", obj("{\"sessionId\":\"" + id + "\",\"configId\":\"model\",\"value\":\"openai/\"}")), -32602, null);
        assertError(agent.call("session/set_config_option", obj("{\"sessionId\":\"" + id + "\",\"configId\":\"model\",\"value\":7}")), -32602, "value");
    }

    @Test
    void switchingModelAnswersFullOptionsAndEmitsAnUpdate() throws Exception {
        initialize();
        String id = newSession();
        JsonNode r = agent.call("session/set_config_option", obj("{\"sessionId\":\"" + id + "\",\"configId\":\"model\",\"value\":\"OpenAI/gpt-x\"}"));
        assertEquals("openai/gpt-x", find(r.path("result").path("configOptions"), "model").path("currentValue").asText());
        JsonNode update = agent.await(m -> "config_option_update".equals(m.path("params").path("update").path("sessionUpdate").asText()), Duration.ofSeconds(30));
        assertEquals("openai/gpt-x", find(update.path("params").path("update").path("configOptions"), "model").path("currentValue").asText());
        JsonNode bare = agent.call("_agentao.cn/set_model", obj("{\"sessionId\":\"" + id + "\",\"model\":\"  other-model \"}"));
        assertEquals("other-model", bare.path("result").path("model").asText());
        assertError(agent.call("_agentao.cn/set_model", obj("{\"sessionId\":\"" + id + "\",\"model\":\"m\",\"apiKey\":\"k\"}")), -32602, "apiKey");
    }

    @Test
    void setModeEmitsCurrentModeUpdate() throws Exception {
        initialize();
        String id = newSession();
        JsonNode r = agent.call("session/set_mode", obj("{\"sessionId\":\"" + id + "\",\"modeId\":\"read-only\"}"));
        assertTrue(r.has("result"), r.toString());
        JsonNode u = agent.await(m -> "current_mode_update".equals(m.path("params").path("update").path("sessionUpdate").asText()), Duration.ofSeconds(30));
        assertEquals("read-only", u.path("params").path("update").path("currentModeId").asText());
        assertError(agent.call("session/set_mode", obj("{\"sessionId\":\"" + id + "\",\"modeId\":\"\"}")), -32602, "modeId");
        // an unknown mode is refused like set_config_option refuses one, naming the valid modes, and not kept
        JsonNode unknown = agent.call("session/set_mode", obj("{\"sessionId\":\"" + id + "\",\"modeId\":\"yolo\"}"));
        assertError(unknown, -32602, "yolo");
        for (String mode : List.of("read-only", "workspace-write", "full-access", "plan")) {
            assertTrue(unknown.path("error").path("message").asText().contains(mode), unknown.toString());
        }
        assertTrue(agent.messages().stream().noneMatch(m -> m.toString().contains("\"currentModeId\":\"yolo\"")
                || m.toString().contains("\"currentValue\":\"yolo\"")), "the unknown mode was not taken");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "[]|prompt",
            "[{\"type\":\"audio\",\"data\":\"AAAA\",\"mimeType\":\"audio/wav\"}]|audio",
            "[{\"type\":\"image\",\"data\":\"not base64!!\",\"mimeType\":\"image/png\"}]|base64",
            "[{\"type\":\"image\",\"data\":\"\",\"mimeType\":\"image/png\"}]|data must not be empty",
            "[{\"type\":\"image\",\"data\":\"AAAA\",\"mimeType\":\"text/plain\"}]|mimeType",
            "[{\"type\":\"text\"}]|prompt[0].text",
            "[{\"type\":\"video\"}]|video",
            "[{\"type\":\"resource_link\",\"name\":\"a\"}]|uri",
            "[\"hello\"]|prompt[0]"})
    void promptContentIsValidated(String prompt, String field) throws Exception {
        initialize();
        String id = newSession();
        assertError(agent.call("session/prompt", obj("{\"sessionId\":\"" + id + "\",\"prompt\":" + prompt + "}")), -32602, field);
    }

    // ------------------------------------------------------------------ lifecycle

    @Test
    void exitsWithZeroAtEndOfInput() throws Exception { // how fast is not asserted: it depends on the machine's load
        initialize();
        newSession();
        agent.closeStdin();
        assertEquals(0, agent.awaitExit(Duration.ofSeconds(30)));
    }

    @Test
    void exitsWithZeroOnSigterm() throws Exception {
        initialize();
        newSession();
        agent.process().destroy(); // SIGTERM
        assertEquals(0, agent.awaitExit(Duration.ofSeconds(30)));
    }

    /** Editors configured for Agentao start {@code agentao --acp --stdio}: the same line starts this agent. */
    @Test
    void agentaosLaunchLineWorks() throws Exception {
        agent.close();
        agent = AgentProcess.start(Map.of("OPENAI_API_KEY", "test-key-not-real", "OPENAI_MODEL", "fake-model"), "--acp", "--stdio");
        assertEquals(1, initialize().path("protocolVersion").asInt());
        newSession();
        agent.closeStdin();
        assertEquals(0, agent.awaitExit(Duration.ofSeconds(30)));
        assertFalse(agent.stderr().contains("Unknown option"), agent.stderr());
    }

    @Test
    void stdoutCarriesOnlyProtocolEvenWithDebugLogging() throws Exception {
        agent.close();
        agent = AgentProcess.start(Map.of("OPENAI_API_KEY", "test-key-not-real"), "--acp", "--log-level", "debug");
        initialize();
        newSession();
        agent.sendRaw("junk");
        nextResponse();
        agent.closeStdin();
        agent.awaitExit(Duration.ofSeconds(30));
        assertFalse(agent.stdoutLines().isEmpty());
        assertEquals(List.of(), agent.violations());
        assertTrue(agent.stderr().contains("DEBUG") || agent.stderr().contains("INFO"), agent.stderr());
        String all = agent.stdoutLines().stream().collect(Collectors.joining("\n"));
        assertFalse(all.contains("[INFO]"));
    }
}
