package cn.agentao.agent.connect.smcp;

import cn.agentao.agent.connect.mcp.McpToolResult;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.permission.PermissionMemory;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.util.CancellationSource;
import cn.agentao.agent.util.CancelledException;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static cn.agentao.agent.connect.smcp.SmcpTestOffice.ev;
import static org.junit.jupiter.api.Assertions.*;

/** The agent's side of A2C-SMCP against a real Socket.IO office (Node socket.io) with scripted Computers. */
class SmcpOfficeIT {
    static final Duration WAIT = Duration.ofSeconds(30);
    final List<AutoCloseable> open = new ArrayList<>();
    final List<String> notices = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open.reversed()) c.close();
    }

    SmcpTestOffice office(String... args) throws Exception {
        SmcpTestOffice o = SmcpTestOffice.start(args);
        open.add(o);
        return o;
    }

    SmcpOffice agent(SmcpTestOffice server, String office, String token, String version, int toolTimeout) {
        SmcpOffice a = new SmcpOffice(new SmcpConfig(URI.create(server.url()), office, "agent-1", token, token == null ? null : "SMCP_TOKEN",
                version, Duration.ofSeconds(toolTimeout)));
        a.addNoticeListener(notices::add);
        open.add(a);
        a.start();
        return a;
    }

    SmcpOffice joined(SmcpTestOffice server) {
        SmcpOffice a = agent(server, "office-1", null, "0.2.0", 60);
        assertTrue(a.awaitSettled(WAIT), () -> "not joined: " + a.status());
        return a;
    }

    static ObjectNode args(String field, Object value) {
        return Json.mapper().valueToTree(java.util.Map.of(field, value));
    }

    static void eventually(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) fail("not within " + WAIT + ": " + what);
            Thread.sleep(50);
        }
    }

    @Test
    void joinsTheOfficeAndOffersEachComputersToolsUnderTheirNames() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = joined(server);
        JsonNode joined = server.await(e -> "joined".equals(e.path("ev").asText()) && "agent".equals(e.path("role").asText()), WAIT);
        assertEquals("agent-1", joined.path("name").asText());
        assertEquals("0.2.0", joined.path("version").asText(), "a2c_version travels in the query");
        List<String> names = agent.tools().stream().map(SmcpTool::name).toList();
        assertTrue(names.containsAll(List.of("smcp__alpha__echo", "smcp__alpha__note", "smcp__alpha__web_search", "smcp__alpha__doc_search",
                "smcp__alpha__get_desktop", "smcp__alpha__get_resources", "smcp__alpha__get_dpe")), names.toString());
        assertFalse(names.contains("smcp__alpha__search"), "clashing names take their alias");
        SmcpTool echo = agent.tool("smcp__alpha__echo").orElseThrow();
        assertTrue(echo.autoApply());
        assertTrue(echo.readOnly());
        assertEquals("text", echo.schema().path("required").get(0).asText());
        SmcpTool note = agent.tool("smcp__alpha__note").orElseThrow();
        assertFalse(note.autoApply());
        assertFalse(note.readOnly());
        assertEquals(List.of("alpha"), List.copyOf(agent.status().computers().keySet()));
        assertEquals(1, agent.toolSpecifications().stream().filter(s -> s.name().equals("smcp__alpha__echo")).count());
    }

    @Test
    void aToolCallGoesThroughTheOfficeAndItsResultComesBack() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = joined(server);
        McpToolResult r = agent.call(agent.tool("smcp__alpha__echo").orElseThrow(), args("text", "hi"), Cancellation.NONE);
        assertFalse(r.isError(), r.text());
        assertEquals("alpha says: hi", r.text());
        JsonNode call = server.await(ev("tool_call"), WAIT);
        assertEquals("agent-1", call.path("agent").asText());
        assertEquals("echo", call.path("tool").asText());
        assertEquals("hi", call.path("params").path("text").asText());
        assertEquals(60, call.path("timeout").asInt());
        assertFalse(call.path("req_id").asText().isBlank());

        McpToolResult alias = agent.call(agent.tool("smcp__alpha__doc_search").orElseThrow(), args("q", "budget"), Cancellation.NONE);
        assertEquals("results for budget", alias.text());
        assertEquals("search", server.await(ev("tool_call"), 2, WAIT).path("tool").asText(), "the Computer is called by the tool's own name");
    }

    @Test
    void imagesStayImagesAndAFailedToolIsAFailedCall() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = joined(server);
        McpToolResult picture = agent.call(agent.tool("smcp__alpha__picture").orElseThrow(), Json.object(), Cancellation.NONE);
        assertFalse(picture.isError());
        assertTrue(picture.content().stream().anyMatch(b -> b instanceof ContentBlock.Image i && "image/png".equals(i.mimeType())), picture.content().toString());
        McpToolResult failed = agent.call(agent.tool("smcp__alpha__fail").orElseThrow(), Json.object(), Cancellation.NONE);
        assertTrue(failed.isError());
        assertTrue(failed.text().contains("the disk is full"), failed.text());
        SmcpTool ghost = new SmcpTool(SmcpTool.Kind.TOOL, "ghost", "echo", "smcp__ghost__echo", "", Json.object(), false, false, true);
        McpToolResult missing = agent.call(ghost, Json.object(), Cancellation.NONE);
        assertTrue(missing.isError());
        assertTrue(missing.text().contains("not found"), missing.text());
    }

    @Test
    void theToolListFollowsTheOffice() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = joined(server);
        server.command("join beta");
        eventually(() -> agent.tool("smcp__beta__echo").isPresent(), "beta's tools appear");
        eventually(() -> notices.stream().anyMatch(n -> n.contains("Computer beta joined")), "a notice names beta");
        assertEquals("beta says: yo", agent.call(agent.tool("smcp__beta__echo").orElseThrow(), args("text", "yo"), Cancellation.NONE).text());

        server.command("update alpha");
        eventually(() -> agent.tool("smcp__alpha__extra").isPresent(), "alpha's new tool appears");
        eventually(() -> notices.stream().anyMatch(n -> n.contains("Computer alpha changed its tools")), "a notice says alpha changed");

        server.command("leave beta");
        eventually(() -> agent.tool("smcp__beta__echo").isEmpty(), "beta's tools are gone");
        eventually(() -> notices.stream().anyMatch(n -> n.contains("Computer beta left")), "a notice says beta left");
        assertTrue(agent.tool("smcp__alpha__echo").isPresent());
    }

    /** The tool {@code remote} of Computer {@code computer}, once the office offers it. */
    static SmcpTool toolOf(SmcpOffice agent, String computer, String remote) throws InterruptedException {
        eventually(() -> agent.tools().stream().anyMatch(t -> t.computer().equals(computer) && t.remoteName().equals(remote)),
                computer + "'s " + remote + " appears");
        return agent.tools().stream().filter(t -> t.computer().equals(computer) && t.remoteName().equals(remote)).findFirst().orElseThrow();
    }

    static PermissionRequest permission(SmcpOffice agent, SmcpTool tool) {
        return new SmcpToolAdapter(agent, tool).prepare(Json.object(), null).permission();
    }

    @Test
    void anAlwaysAllowForOneComputerDoesNotCoverAnotherWhoseNameSanitisesAlike() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = joined(server);
        server.command("join a.b");
        SmcpTool dotted = toolOf(agent, "a.b", "note");
        PermissionMemory memory = new PermissionMemory();
        assertTrue(memory.record(permission(agent, dotted), "allow_always"));
        assertEquals(Optional.of(PermissionMemory.Answer.ALLOW), memory.recall(permission(agent, dotted)));

        server.command("leave a.b");
        eventually(() -> agent.tools().stream().noneMatch(t -> t.computer().equals("a.b")), "a.b's tools are gone");
        server.command("join a_b");
        SmcpTool underscored = toolOf(agent, "a_b", "note");
        assertNotEquals(dotted.name(), underscored.name(), "another Computer never inherits the name of a tool");
        assertEquals(Optional.empty(), memory.recall(permission(agent, underscored)), "a.b's answer is not a_b's");

        server.command("join a.b"); // back, after a_b this time: the same name as before, the same answer
        SmcpTool again = toolOf(agent, "a.b", "note");
        assertEquals(dotted.name(), again.name());
        assertEquals(Optional.of(PermissionMemory.Answer.ALLOW), memory.recall(permission(agent, again)));
        assertEquals(Optional.empty(), memory.recall(permission(agent, toolOf(agent, "a_b", "note"))));
        assertEquals(PermissionMemory.fromJson(memory.toJson()).snapshot(), memory.snapshot(), "kept with the session as it was");
    }

    /** Calls the slow tool {@code tool}, cancels it once the Computer has it; the office's cancel_received event. */
    static JsonNode cancelASlowCall(SmcpTestOffice server, SmcpOffice agent, String tool) throws Exception {
        CancellationSource cancel = new CancellationSource();
        CompletableFuture<Object> outcome = CompletableFuture.supplyAsync(() -> {
            try {
                return agent.call(agent.tool(tool).orElseThrow(), args("seconds", 120), cancel);
            } catch (CancelledException e) {
                return e;
            }
        });
        String reqId = server.await(ev("tool_call"), WAIT).path("req_id").asText();
        cancel.cancel();
        assertInstanceOf(CancelledException.class, outcome.get(30, TimeUnit.SECONDS));
        JsonNode received = server.await(ev("cancel_received"), WAIT);
        assertEquals(reqId, received.path("req_id").asText());
        assertEquals(reqId, server.await(ev("cancelled"), WAIT).path("req_id").asText(), "the Computer hears notify:tool_call_cancel");
        return received;
    }

    @Test
    void cancellingACallSendsToolCallCancel() throws Exception {
        SmcpTestOffice server = office();
        cancelASlowCall(server, joined(server), "smcp__alpha__slow");
    }

    @Test
    void aCallThatTimesOutIsCancelledAndSaysSo() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = agent(server, "office-1", null, "0.2.0", 1);
        assertTrue(agent.awaitSettled(WAIT));
        McpToolResult r = agent.call(agent.tool("smcp__alpha__slow").orElseThrow(), args("seconds", 600), Cancellation.NONE);
        assertTrue(r.isError());
        assertTrue(r.text().contains("did not answer within 1 s"), r.text());
        String reqId = server.await(ev("tool_call"), WAIT).path("req_id").asText();
        assertEquals(reqId, server.await(ev("cancel_received"), WAIT).path("req_id").asText());
    }

    @Test
    void aComputerThatLeavesMidCallEndsTheCallWithAReason() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = joined(server);
        CompletableFuture<McpToolResult> outcome = CompletableFuture.supplyAsync(() -> {
            try {
                return agent.call(agent.tool("smcp__alpha__slow").orElseThrow(), args("seconds", 600), Cancellation.NONE);
            } catch (CancelledException e) {
                throw new IllegalStateException(e);
            }
        });
        server.await(ev("tool_call"), WAIT);
        server.command("leave alpha");
        McpToolResult r = outcome.get(30, TimeUnit.SECONDS);
        assertTrue(r.isError());
        assertTrue(r.text().contains("Computer alpha left the office during the call"), r.text());
    }

    @Test
    void aVersionMismatchIsNamedAndNotRetried() throws Exception {
        SmcpTestOffice server = office("--a2c-version", "0.3.0");
        SmcpOffice agent = agent(server, "office-1", null, "0.2.0", 60);
        assertFalse(agent.awaitSettled(WAIT));
        SmcpOffice.Status s = agent.status();
        assertEquals(SmcpOffice.State.FAILED, s.state());
        assertTrue(s.problem().contains("this server speaks A2C 0.3.0, the agent speaks 0.2.0"), s.problem());
        assertTrue(notices.stream().anyMatch(n -> n.contains("this server speaks A2C 0.3.0")), notices.toString());
        // one handshake, and the plain HTTP request that reads why it was refused; nothing else, not even a retry of the
        // socket library already on its way while the refusal is read
        server.await(e -> "refused".equals(e.path("ev").asText()) && e.path("code").asInt() == 4008, 2, WAIT);
        Thread.sleep(2000); // a retrying client would come back after 0.25-0.75 s, then after 0.5-1.5 s
        assertEquals(2, server.count(e -> "refused".equals(e.path("ev").asText()) && e.path("code").asInt() == 4008),
                "no further handshake after the mismatch: " + server.count(ev("refused")));
        assertEquals(SmcpOffice.State.FAILED, agent.status().state(), "and the office stays failed");
        assertEquals(0, server.count(e -> "joined".equals(e.path("ev").asText()) && "agent".equals(e.path("role").asText())));

        SmcpOffice matching = agent(server, "office-1", null, "0.3.0", 60);
        assertTrue(matching.awaitSettled(WAIT), "a2cVersion from config.json: " + matching.status());
    }

    @Test
    void aFullOfficeAnUnknownOfficeAndABadTokenAreNamed() throws Exception {
        SmcpTestOffice server = office("--token", "s3cret-token");
        SmcpOffice first = agent(server, "office-1", "s3cret-token", "0.2.0", 60);
        assertTrue(first.awaitSettled(WAIT), first.status().toString());

        SmcpOffice second = agent(server, "office-1", "s3cret-token", "0.2.0", 60);
        assertFalse(second.awaitSettled(WAIT));
        assertTrue(second.status().problem().contains("the office is full"), second.status().problem());

        SmcpOffice lost = agent(server, "no-such-office", "s3cret-token", "0.2.0", 60);
        assertFalse(lost.awaitSettled(WAIT));
        assertTrue(lost.status().problem().contains("the office was not found"), lost.status().problem());

        SmcpOffice wrong = agent(server, "office-1", "wrong-token", "0.2.0", 60);
        assertFalse(wrong.awaitSettled(WAIT));
        String problem = wrong.status().problem();
        assertTrue(problem.contains("refused the agent") && problem.contains("invalid token"), problem);
        assertFalse(String.join("\n", notices).contains("wrong-token") || String.join("\n", notices).contains("s3cret-token"),
                "no token in what the user is told");
        assertFalse(first.status().toString().contains("s3cret"), "no token in the status");
    }

    @Test
    void aLostConnectionReconnectsAndJoinsAgain() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = joined(server);
        server.command("drop-agents");
        server.await(e -> "joined".equals(e.path("ev").asText()) && "agent".equals(e.path("role").asText()), 2, WAIT);
        eventually(() -> agent.status().state() == SmcpOffice.State.JOINED && agent.tool("smcp__alpha__echo").isPresent(), "joined again");
        eventually(() -> notices.stream().anyMatch(n -> n.contains("Back in office office-1")), "the user is told");
        assertEquals("alpha says: again", agent.call(agent.tool("smcp__alpha__echo").orElseThrow(), args("text", "again"), Cancellation.NONE).text());
    }

    @Test
    void theDesktopResourcesAndDocumentsOfAComputerCanBeRead() throws Exception {
        SmcpTestOffice server = office();
        SmcpOffice agent = joined(server);
        McpToolResult desktop = agent.call(agent.tool("smcp__alpha__get_desktop").orElseThrow(), Json.object(), Cancellation.NONE);
        assertTrue(desktop.text().contains("window://alpha/main") && desktop.text().contains("The main window of alpha"), desktop.text());
        McpToolResult resources = agent.call(agent.tool("smcp__alpha__get_resources").orElseThrow(), Json.object(), Cancellation.NONE);
        assertTrue(resources.text().contains("dpe://alpha/report-1"), resources.text());
        McpToolResult unknown = agent.call(agent.tool("smcp__alpha__get_resources").orElseThrow(), args("mcp_server", "nope"), Cancellation.NONE);
        assertTrue(unknown.isError() && unknown.text().contains("not found"), unknown.text());
        McpToolResult document = agent.call(agent.tool("smcp__alpha__get_dpe").orElseThrow(), args("uri", "dpe://alpha/report-1"), Cancellation.NONE);
        assertTrue(document.text().contains("access URI: https://files.example/") && document.text().contains("application/pdf"), document.text());
        assertTrue(agent.tool("smcp__alpha__get_desktop").orElseThrow().readOnly());
    }

    // ---------------------------------------------------------------- A2C-SMCP 0.3

    /** An agent that offers the newest version it speaks (no a2cVersion in config.json), once joined. */
    SmcpOffice joinedNegotiating(SmcpTestOffice server, int toolTimeout) {
        SmcpOffice a = agent(server, "office-1", null, null, toolTimeout);
        assertTrue(a.awaitSettled(WAIT), () -> "not joined: " + a.status());
        return a;
    }

    static java.util.function.Predicate<JsonNode> agentJoined() {
        return e -> "joined".equals(e.path("ev").asText()) && "agent".equals(e.path("role").asText());
    }

    @Test
    void speaks03ByDefaultDeclaringItsRoleInJoinOfficeAndNamingToolsByBundle() throws Exception {
        SmcpTestOffice server = office("--a2c-version", "0.3.0");
        SmcpOffice agent = joinedNegotiating(server, 60);
        JsonNode joined = server.await(agentJoined(), WAIT);
        assertEquals("0.3.0", joined.path("version").asText());
        assertTrue(joined.path("auth_role").isNull(), "0.3: the role is declared in server:join_office, not in auth: " + joined);
        assertEquals(0, server.count(ev("refused")), "0.3.0 is offered first");
        assertEquals("0.3.0", agent.version());
        assertTrue(SmcpStatusText.render(agent.status()).contains("(A2C 0.3.0)"), SmcpStatusText.render(agent.status()));

        List<String> names = agent.tools().stream().map(SmcpTool::name).toList();
        assertTrue(names.containsAll(List.of("smcp__alpha__files__echo", "smcp__alpha__web__web_search", "smcp__alpha__docs__doc_search",
                "smcp__alpha__get_skills", "smcp__alpha__get_skill", "smcp__alpha__get_desktop")), names.toString());
        assertFalse(names.contains("smcp__alpha__get_dpe"), "0.3 removed the Finder events");
        assertTrue(agent.tool("smcp__alpha__web__web_search").orElseThrow().description().contains("MCP server web"));

        McpToolResult r = agent.call(agent.tool("smcp__alpha__docs__doc_search").orElseThrow(), args("q", "budget"), Cancellation.NONE);
        assertEquals("results for budget", r.text());
        assertEquals("docs__doc_search", server.await(ev("tool_call"), WAIT).path("tool").asText(), "called by its exposed name");
    }

    @Test
    void aServerOf02RefusesThe03HandshakeAndIsReachedWithTheVersionItAccepts() throws Exception {
        SmcpTestOffice server = office(); // speaks 0.2.0; its refusal names only its server_version
        SmcpOffice agent = joinedNegotiating(server, 60);
        assertTrue(server.count(e -> "refused".equals(e.path("ev").asText()) && e.path("code").asInt() == 4008
                && "0.3.0".equals(e.path("client_version").asText())) >= 1, "0.3.0 was offered first");
        JsonNode joined = server.await(agentJoined(), WAIT);
        assertEquals("0.2.0", joined.path("version").asText());
        assertEquals("agent", joined.path("auth_role").asText(), "up to 0.2 the role also travels in auth");
        assertEquals("0.2.0", agent.version());
        String status = SmcpStatusText.render(agent.status());
        assertTrue(status.contains("(A2C 0.2.0, after the office refused 0.3.0)"), status);
        assertTrue(agent.tool("smcp__alpha__get_dpe").isPresent() && agent.tool("smcp__alpha__doc_search").isPresent(), "0.2 names");
        assertEquals("alpha says: old", agent.call(agent.tool("smcp__alpha__echo").orElseThrow(), args("text", "old"), Cancellation.NONE).text());
    }

    @Test
    void aReconnectionOffersTheNewestVersionAgainSoAnUpgradedOfficeIsSpokenToIn03() throws Exception {
        SmcpTestOffice server = office(); // speaks 0.2.0 at first
        SmcpOffice agent = joinedNegotiating(server, 60);
        assertEquals("0.2.0", agent.version());
        assertEquals("0.2.0", server.await(agentJoined(), WAIT).path("version").asText());

        server.command("version 0.3.0"); // upgraded: the next connection meets 0.3.0
        int refusals = server.count(ev("refused"));
        server.command("drop-agents");
        JsonNode again = server.await(agentJoined(), 2, WAIT);
        assertEquals("0.3.0", again.path("version").asText(), "the new connection offered 0.3.0 again");
        assertEquals(refusals, server.count(ev("refused")), "0.3.0 was accepted at once");
        eventually(() -> agent.status().state() == SmcpOffice.State.JOINED && agent.tool("smcp__alpha__docs__doc_search").isPresent(),
                "joined again with the 0.3 tool names");
        assertEquals("0.3.0", agent.version());
        String status = SmcpStatusText.render(agent.status());
        assertTrue(status.contains("(A2C 0.3.0)"), status);
        assertEquals("results for again", agent.call(agent.tool("smcp__alpha__docs__doc_search").orElseThrow(), args("q", "again"),
                Cancellation.NONE).text());

        server.command("version 0.2.0"); // and back: refused at 0.3.0, reached at 0.2.0 once more
        server.command("drop-agents");
        assertEquals("0.2.0", server.await(agentJoined(), 3, WAIT).path("version").asText());
        eventually(() -> agent.status().state() == SmcpOffice.State.JOINED && agent.tool("smcp__alpha__echo").isPresent(), "0.2 again");
        assertTrue(SmcpStatusText.render(agent.status()).contains("(A2C 0.2.0, after the office refused 0.3.0)"));
    }

    @Test
    void aServerThatAcceptsNothingTheAgentSpeaksIsNamedAfterOneTry() throws Exception {
        SmcpTestOffice server = office("--a2c-version", "1.0.0");
        SmcpOffice agent = agent(server, "office-1", null, null, 60);
        assertFalse(agent.awaitSettled(WAIT));
        String problem = agent.status().problem();
        assertTrue(problem.contains("this server speaks A2C 1.0.0, the agent speaks 0.3.0 or 0.2.0; it accepts 1.0.0 to 1.999.999"), problem);
        assertTrue(server.count(ev("refused")) >= 1);
        assertEquals(0, server.count(e -> "refused".equals(e.path("ev").asText()) && !"0.3.0".equals(e.path("client_version").asText())),
                "no handshake with a version the server's refusal does not accept");
    }

    static byte[] bigBlob() { // what office.mjs serves for its "big" tool
        byte[] b = new byte[700 * 1024 + 123];
        for (int i = 0; i < b.length; i++) b[i] = (byte) ((i * 31 + 7) % 251);
        return b;
    }

    @Test
    void aLargeBinaryResultIsFetchedByItsBlobHandleInChunksAndChecked() throws Exception {
        SmcpTestOffice server = office("--a2c-version", "0.3.0");
        SmcpOffice agent = joinedNegotiating(server, 60);
        McpToolResult r = agent.call(agent.tool("smcp__alpha__files__big").orElseThrow(), Json.object(), Cancellation.NONE);
        assertFalse(r.isError(), r.text());
        ContentBlock.Image image = r.content().stream().filter(b -> b instanceof ContentBlock.Image).map(b -> (ContentBlock.Image) b)
                .findFirst().orElseThrow(() -> new AssertionError(r.content().toString()));
        assertArrayEquals(bigBlob(), java.util.Base64.getDecoder().decode(image.data()), "the bytes the Computer left out are back");
        assertEquals("image/png", image.mimeType());
        assertFalse(image.meta().has("a2c_blob_handle"), "the handle is consumed");
        assertEquals("kept", image.meta().path("note").asText(), "the rest of _meta stays");
        List<Long> offsets = new ArrayList<>();
        for (int n = 1; n <= server.count(ev("get_blob")); n++) offsets.add(server.await(ev("get_blob"), n, WAIT).path("offset").asLong());
        assertEquals(List.of(0L, 262144L, 524288L), offsets, "pulled chunk after chunk from absolute offsets");
    }

    @Test
    void aCorruptedBlobIsRefusedAndAnOversizedOneIsNotEvenFetched() throws Exception {
        SmcpTestOffice server = office("--a2c-version", "0.3.0");
        SmcpOffice agent = joinedNegotiating(server, 60);
        McpToolResult corrupt = agent.call(agent.tool("smcp__alpha__files__corrupt").orElseThrow(), Json.object(), Cancellation.NONE);
        assertTrue(corrupt.isError());
        assertTrue(corrupt.text().contains("does not match its sha256") && corrupt.text().contains("refused"), corrupt.text());
        assertTrue(corrupt.content().stream().noneMatch(b -> b instanceof ContentBlock.Image), "no altered bytes reach the model");

        McpToolResult huge = agent.call(agent.tool("smcp__alpha__files__huge").orElseThrow(), Json.object(), Cancellation.NONE);
        assertTrue(huge.isError());
        assertTrue(huge.text().contains("more than the 32 MiB the agent takes"), huge.text());
        assertEquals(0, server.count(e -> "get_blob".equals(e.path("ev").asText()) && "h-huge-1".equals(e.path("handle").asText())));
    }

    @Test
    void aComputersSkillsAreListedAndRead() throws Exception {
        SmcpTestOffice server = office("--a2c-version", "0.3.0");
        SmcpOffice agent = joinedNegotiating(server, 60);
        McpToolResult list = agent.call(agent.tool("smcp__alpha__get_skills").orElseThrow(), Json.object(), Cancellation.NONE);
        assertTrue(list.text().contains("pdf-report — Writes PDF reports the house way."), list.text());
        SmcpTool skill = agent.tool("smcp__alpha__get_skill").orElseThrow();
        assertTrue(skill.readOnly());
        McpToolResult body = agent.call(skill, args("name", "pdf-report"), Cancellation.NONE);
        assertTrue(body.text().contains("Use the house template"), body.text());
        ObjectNode logo = args("name", "pdf-report").put("rel_path", "logo.png");
        McpToolResult binary = agent.call(skill, logo, Cancellation.NONE);
        assertFalse(binary.isError(), binary.text());
        assertTrue(binary.text().contains("image/png, 70 bytes"), binary.text());
        assertEquals("h-logo-1", server.await(ev("get_blob"), WAIT).path("handle").asText(), "a binary file comes by blob handle");
        McpToolResult escape = agent.call(skill, args("name", "pdf-report").put("rel_path", "../secrets"), Cancellation.NONE);
        assertTrue(escape.isError() && escape.text().contains("that SKILL file cannot be read"), escape.text());
        McpToolResult invalid = agent.call(skill, args("name", "Bad Name!"), Cancellation.NONE);
        assertTrue(invalid.isError() && invalid.text().contains("not a valid SKILL name"), invalid.text());
    }

    @Test
    void cancellationIn03IsTheStandardFireAndForgetAndTimeoutsAreToldApart() throws Exception {
        SmcpTestOffice server = office("--a2c-version", "0.3.0", "--max-agents", "2");
        JsonNode received = cancelASlowCall(server, joinedNegotiating(server, 60), "smcp__alpha__files__slow");
        assertEquals("[\"agent\",\"req_id\"]", received.path("fields").toString(), "AgentCallData: the req_id locates the call");
        assertFalse(received.path("asked_for_ack").asBoolean(), "server:tool_call_cancel is fire-and-forget");

        SmcpOffice impatient = agent(server, "office-1", null, null, 1);
        assertTrue(impatient.awaitSettled(WAIT), () -> impatient.status().toString());
        McpToolResult r = impatient.call(impatient.tool("smcp__alpha__files__slow").orElseThrow(), args("seconds", 600), Cancellation.NONE);
        assertTrue(r.isError());
        assertTrue(r.text().contains("the call timed out on the Computer"), "meta.a2c_timeout is read: " + r.text());
    }
}
