package cn.agentao.agent.connect.smcp;

import cn.agentao.agent.testing.AgentProcess;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.testing.TestCertificates;
import cn.agentao.agent.testing.TinyProxy;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static cn.agentao.agent.connect.smcp.SmcpTestOffice.ev;
import static org.junit.jupiter.api.Assertions.*;

/** The real agent in a real A2C-SMCP office (config.json "smcp"), driven over ACP with the scripted model. */
class SmcpIT {
    static final Duration WAIT = Duration.ofSeconds(30);
    static final String TOKEN = "office-token-7f3a91";

    @TempDir
    Path dir;
    SmcpTestOffice office;
    FakeModelServer model;
    AgentProcess agent;
    final List<JsonNode> questions = new CopyOnWriteArrayList<>();
    volatile String answer = "allow_once";
    final List<AutoCloseable> open = new ArrayList<>();

    void start(String a2cVersion, String... officeArgs) throws Exception {
        start(a2cVersion, null, Map.of(), officeArgs);
    }

    /** {@code officeUrl}: how the agent reaches the office (null: its loopback address); {@code extraEnv}: the agent's. */
    void start(String a2cVersion, String officeUrl, Map<String, String> extraEnv, String... officeArgs) throws Exception {
        List<String> args = new ArrayList<>(List.of("--token", TOKEN));
        args.addAll(List.of(officeArgs));
        office = SmcpTestOffice.start(args.toArray(String[]::new));
        model = FakeModelServer.start();
        Path config = Files.createDirectories(dir.resolve("config/agent"));
        String url = officeUrl == null ? office.url() : officeUrl.replace("PORT", String.valueOf(office.port));
        ObjectNode smcp = Json.object().put("url", url).put("office", "office-1").put("name", "coder").put("tokenEnv", "OFFICE_ACCESS");
        if (a2cVersion != null) smcp.put("a2cVersion", a2cVersion);
        ObjectNode root = Json.object();
        root.set("smcp", smcp);
        Files.writeString(config.resolve("config.json"), root.toString());
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("AGENT_SESSIONS_DIR", dir.resolve("store").toString());
        env.put("OFFICE_ACCESS", TOKEN);
        env.putAll(extraEnv);
        agent = AgentProcess.start(env, "--acp");
        agent.onClientRequest("session/request_permission", p -> {
            questions.add(p);
            ObjectNode r = Json.object();
            r.putObject("outcome").put("outcome", "selected").put("optionId", answer);
            return r;
        });
        agent.call("initialize", Json.object().put("protocolVersion", 1));
    }

    @AfterEach
    void stop() {
        try {
            if (agent != null) {
                assertEquals(List.of(), agent.violations(), "nothing but protocol on stdout");
                assertFalse(String.join("\n", agent.stdoutLines()).contains(TOKEN), "the office token never reaches the client");
                assertFalse(agent.stderr().contains(TOKEN), "the office token is never logged");
            }
            if (model != null) assertFalse(model.requests().toString().contains(TOKEN), "the office token never reaches the model");
        } finally {
            if (agent != null) agent.close();
            if (model != null) model.close();
            if (office != null) office.close();
        }
    }

    String newSession() throws Exception {
        JsonNode r = agent.call("session/new", Json.object().put("cwd", dir.toString()).set("mcpServers", Json.mapper().createArrayNode()), WAIT);
        assertTrue(r.has("result"), r.toString());
        return r.path("result").path("sessionId").asText();
    }

    ObjectNode prompt(String id, String text) {
        ObjectNode p = Json.object().put("sessionId", id);
        p.putArray("prompt").addObject().put("type", "text").put("text", text);
        return p;
    }

    JsonNode notice(String sessionId, String containing) throws InterruptedException {
        return agent.await(m -> sessionId.equals(m.path("params").path("sessionId").asText())
                && m.path("params").path("update").path("content").path("text").asText().contains(containing), WAIT);
    }

    @Test
    void anOfficeBehindTheUsersProxyIsReachedThroughItOverTls() throws Exception {
        String host = TestCertificates.localName(); // not a loopback name: the agent must take the proxy to reach it
        String password = "pw-" + java.util.UUID.randomUUID().toString().substring(0, 12);
        try (TinyProxy proxy = TinyProxy.start(dir.resolve("proxy"), "alice", password)) {
            TestCertificates certs = TestCertificates.get();
            start(null, "https://" + host + ":PORT",
                    Map.of("HTTPS_PROXY", proxy.url("alice", password), "SSL_CERT_FILE", certs.caPem().toString()),
                    "--host", TestCertificates.localAddress().getHostAddress(),
                    "--tls-pfx", certs.serverPkcs12().toString(), "--tls-pass", certs.serverPassword());
            String id = newSession();
            model.enqueue(Script.reply().toolCall("c1", "smcp__alpha__echo", "{\"text\":\"via the proxy\"}"), Script.textReply("done"));
            JsonNode r = agent.call("session/prompt", prompt(id, "ask alpha"), WAIT);
            assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());
            assertTrue(model.lastRequest().messages().toString().contains("alpha says: via the proxy"), "the call went through the office");
            // the Socket.IO connection itself went through the tunnel (before, only the version check did)
            assertTrue(proxy.requests().contains("CONNECT " + host + ":" + office.port), "tunnels: " + proxy.requests());
            assertFalse(agent.stderr().contains(password), "the proxy password is never logged");
        }
    }

    @Test
    void theModelUsesAComputersToolThroughTheOffice() throws Exception {
        start(null);
        String id = newSession();
        model.enqueue(Script.reply().toolCall("c1", "smcp__alpha__echo", "{\"text\":\"from the model\"}"), Script.textReply("done"));
        JsonNode r = agent.call("session/prompt", prompt(id, "ask alpha"), WAIT);
        assertEquals("end_turn", r.path("result").path("stopReason").asText(), r.toString());
        String offered = model.requests().get(0).tools().toString();
        assertTrue(offered.contains("smcp__alpha__echo") && offered.contains("smcp__alpha__get_desktop") && offered.contains("smcp__alpha__doc_search"), offered);
        assertTrue(model.lastRequest().messages().toString().contains("alpha says: from the model"), "the result reaches the model");
        assertEquals(List.of(), questions, "auto_apply and read-only: no question");
        JsonNode call = office.await(ev("tool_call"), WAIT);
        assertEquals("coder", call.path("agent").asText());
        assertEquals("from the model", call.path("params").path("text").asText());
        List<JsonNode> shown = agent.updates(id).stream().filter(u -> "tool_call".equals(u.path("sessionUpdate").asText())).toList();
        assertEquals("echo on alpha", shown.get(0).path("title").asText(), "the editor shows the call");
    }

    @Test
    void theTokenVariableIsKeptFromCommands() throws Exception {
        start(null); // tokenEnv OFFICE_ACCESS does not look like a credential by its name
        String id = newSession();
        answer = "allow_once";
        model.enqueue(Script.reply().toolCall("x1", "run_shell_command", "{\"command\":\"env; echo marker-$OFFICE_ACCESS-end\"}"), Script.textReply("ok"));
        agent.call("session/prompt", prompt(id, "show env"), WAIT);
        String sent = model.lastRequest().messages().toString();
        assertTrue(sent.contains("marker--end"), "the command ran, without the variable: " + sent);
        // stop() checks the token is in no model request
    }

    @Test
    void callsGoThroughThePermissionFlow() throws Exception {
        start(null);
        String id = newSession();
        answer = "reject_once";
        model.enqueue(Script.reply().toolCall("n1", "smcp__alpha__note", "{\"text\":\"asked\"}"), Script.textReply("ok"));
        agent.call("session/prompt", prompt(id, "note it"), WAIT);
        assertEquals(1, questions.size(), "a tool without auto_apply is asked about");
        assertTrue(model.lastRequest().messages().toString().contains("Rejected") || model.lastRequest().messages().toString().contains("rejected"));

        answer = "allow_once";
        assertTrue(agent.call("session/set_mode", Json.object().put("sessionId", id).put("modeId", "read-only")).has("result"));
        model.enqueue(Script.reply().toolCall("s1", "smcp__alpha__stamp", "{\"text\":\"in read-only\"}"), Script.textReply("ok"));
        agent.call("session/prompt", prompt(id, "stamp it"), WAIT);
        assertEquals(1, questions.size(), "denied outright in read-only mode, not asked");
        assertTrue(model.lastRequest().messages().toString().contains("Read only mode does not run")
                || model.lastRequest().messages().toString().contains("does not run"), model.lastRequest().messages().toString());

        model.enqueue(Script.reply().toolCall("e1", "smcp__alpha__echo", "{\"text\":\"still reads\"}"), Script.textReply("ok"));
        agent.call("session/prompt", prompt(id, "echo"), WAIT);
        assertTrue(model.lastRequest().messages().toString().contains("alpha says: still reads"), "a read-only tool runs in read-only mode");
        assertEquals(0, office.count(ev("side_effect")), "neither the rejected nor the denied call reached the Computer");

        assertTrue(agent.call("session/set_mode", Json.object().put("sessionId", id).put("modeId", "workspace-write")).has("result"));
        model.enqueue(Script.reply().toolCall("s2", "smcp__alpha__stamp", "{\"text\":\"auto\"}"), Script.textReply("ok"));
        agent.call("session/prompt", prompt(id, "stamp it"), WAIT);
        assertEquals(1, questions.size(), "auto_apply skips the question outside the read-only modes");
        assertEquals("auto", office.await(ev("side_effect"), WAIT).path("text").asText());
    }

    @Test
    void theToolListFollowsTheOfficeBetweenModelCalls() throws Exception {
        start(null);
        String id = newSession();
        model.enqueue(Script.textReply("hello"));
        agent.call("session/prompt", prompt(id, "hi"), WAIT); // the office is joined when a turn first needs tools
        assertFalse(model.lastRequest().tools().toString().contains("smcp__beta__"));
        office.command("join beta");
        notice(id, "Computer beta joined office office-1");
        model.enqueue(Script.textReply("hello"));
        agent.call("session/prompt", prompt(id, "hi"), WAIT);
        assertTrue(model.lastRequest().tools().toString().contains("smcp__beta__echo"), "beta's tools are offered at the next model call");
        office.command("leave beta");
        notice(id, "Computer beta left office office-1");
        model.enqueue(Script.textReply("hello"));
        agent.call("session/prompt", prompt(id, "hi"), WAIT);
        assertFalse(model.lastRequest().tools().toString().contains("smcp__beta__"), "and dropped when it leaves");
    }

    @Test
    void cancellingTheTurnCancelsTheCallOnTheComputer() throws Exception {
        start(null);
        String id = newSession();
        model.enqueue(Script.reply().toolCall("w1", "smcp__alpha__slow", "{\"seconds\":300}"), Script.textReply("never"));
        long req = agent.start("session/prompt", prompt(id, "wait"));
        String reqId = office.await(ev("tool_call"), WAIT).path("req_id").asText();
        agent.notify("session/cancel", Json.object().put("sessionId", id));
        assertEquals("cancelled", agent.awaitResponse(req, WAIT).path("result").path("stopReason").asText());
        assertEquals(reqId, office.await(ev("cancel_received"), WAIT).path("req_id").asText());
    }

    @Test
    void aVersionMismatchIsToldInPlainWordsAndTheSessionGoesOn() throws Exception {
        start("0.2.0", "--a2c-version", "0.3.0"); // a2cVersion forces 0.2.0: no other is tried
        String id = newSession();
        model.enqueue(Script.textReply("fine"));
        assertEquals("end_turn", agent.call("session/prompt", prompt(id, "hi"), WAIT).path("result").path("stopReason").asText());
        notice(id, "this server speaks A2C 0.3.0, the agent speaks 0.2.0");
        assertFalse(model.lastRequest().tools().toString().contains("smcp__"));
    }
}
