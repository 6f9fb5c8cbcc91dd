package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.tool.McpServerConfig.NameValue;
import cn.agentao.agent.core.content.AvailableCommand;
import cn.agentao.agent.core.content.ToolKind;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancellationSource;
import cn.agentao.agent.util.CancelledException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonRawSchema;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static cn.agentao.agent.connect.mcp.McpTestServers.everythingStdio;
import static cn.agentao.agent.connect.mcp.McpTestServers.filesystemStdio;
import static cn.agentao.agent.connect.mcp.McpTestServers.stdio;
import static cn.agentao.agent.util.Json.mapper;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One session's servers over stdio, all real: server-everything, server-filesystem on a temp root, a command
 * that does not exist, and one that exits at once printing a secret to stderr.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StdioServersIT {
    private static final String SECRET = "s3cret-token-value-42";

    private Path root;
    private McpServerSet set;
    private final McpTestServers.RecordingListener listener = new McpTestServers.RecordingListener();

    @BeforeAll
    void start() throws IOException {
        root = Files.createTempDirectory("mcp-fs-root").toRealPath();
        Files.writeString(root.resolve("hello.txt"), "hello from the test\n");
        List<McpServerDefinition> servers = List.of(
                McpServerDefinition.fromClient(everythingStdio("everything")),
                new McpServerDefinition(filesystemStdio("files", root), McpServerDefinition.Origin.USER_CONFIG, true),
                McpServerDefinition.fromClient(stdio("missing", "agent-test-no-such-command", List.of(), List.of())),
                McpServerDefinition.fromClient(stdio("quits", "sh", List.of("-c", "echo \"bad token $TOKEN\" >&2; exit 3"),
                        List.of(new NameValue("TOKEN", SECRET)))));
        set = McpServerSet.start(servers, root, listener);
        assertTrue(set.awaitReady(Duration.ofSeconds(30)), "every server settles");
    }

    @AfterAll
    void stop() {
        if (set != null) set.close();
    }

    @Test
    void failedServersAreReportedByNameWithAPlainReasonAndNoSecret() {
        assertEquals(2, listener.failures.size(), listener.failures.toString());
        String missing = listener.failures.stream().filter(f -> f.startsWith("missing: ")).findFirst().orElseThrow();
        assertEquals("missing: could not start: cannot run \"agent-test-no-such-command\": no such file or directory", missing);
        String quits = listener.failures.stream().filter(f -> f.startsWith("quits: ")).findFirst().orElseThrow();
        assertTrue(quits.contains("exited with code 3"), quits);
        assertTrue(quits.contains("bad token ***"), quits);
        assertFalse(quits.contains(SECRET), quits);
        assertEquals(Map.of("everything", McpServerState.READY, "files", McpServerState.READY,
                        "missing", McpServerState.FAILED, "quits", McpServerState.FAILED),
                Map.copyOf(set.status().stream().collect(java.util.stream.Collectors.toMap(McpServerSet.ServerStatus::name,
                        McpServerSet.ServerStatus::state))));
        assertTrue(listener.ready.containsAll(List.of("everything", "files")), listener.ready.toString());
    }

    @Test
    void toolsAreListedUnderNamespacedNamesWithTheirSchemas() {
        List<String> names = set.tools().stream().map(McpTool::name).toList();
        assertTrue(names.contains("mcp__everything__echo"), names.toString());
        assertTrue(names.contains("mcp__everything__get-tiny-image"), names.toString());
        assertTrue(names.contains("mcp__files__read_text_file"), names.toString());
        assertTrue(names.contains("mcp__files__write_file"), names.toString());
        assertTrue(names.stream().allMatch(n -> n.matches("[A-Za-z0-9_-]{1,64}")), names.toString());
        assertEquals(names.size(), set.toolSpecifications().size());

        McpTool echo = set.tool("mcp__everything__echo").orElseThrow();
        assertEquals("echo", echo.serverToolName());
        assertTrue(echo.specification().description().startsWith("Echoes back the input string"), echo.specification().description());
        JsonObjectSchema params = echo.specification().parameters();
        assertEquals(List.of("message"), params.required());
        JsonStringSchema message = assertInstanceOf(JsonStringSchema.class, params.properties().get("message"));
        assertEquals("Message to echo", message.description());

        // bounds and defaults LangChain4j's typed schemas cannot hold are kept as raw JSON schema
        JsonObjectSchema links = set.tool("mcp__everything__get-resource-links").orElseThrow().specification().parameters();
        JsonRawSchema count = assertInstanceOf(JsonRawSchema.class, links.properties().get("count"));
        assertTrue(count.schema().contains("\"maximum\":10") && count.schema().contains("\"default\":3"), count.schema());
    }

    @Test
    void annotationsBecomeSafetyAndKind() {
        McpTool echo = set.tool("mcp__everything__echo").orElseThrow();
        assertTrue(echo.safety().readOnly());
        assertFalse(echo.safety().destructive());
        assertFalse(echo.safety().trustedServer());
        assertEquals(ToolKind.READ, echo.kind());
        assertEquals("Echo Tool", echo.title());

        McpTool write = set.tool("mcp__files__write_file").orElseThrow();
        assertFalse(write.safety().readOnly());
        assertTrue(write.safety().destructive());
        assertTrue(write.safety().trustedServer());
        assertEquals(ToolKind.EDIT, write.kind());
        assertTrue(write.safety().describe().contains("may modify or delete data"), write.safety().describe());

        McpTool mkdir = set.tool("mcp__files__create_directory").orElseThrow();
        assertFalse(mkdir.safety().destructive());
        assertTrue(mkdir.safety().idempotent());
    }

    @Test
    void echoReturnsItsText() throws CancelledException {
        McpToolResult r = set.callTool("mcp__everything__echo", mapper().createObjectNode().put("message", "hi there"), Cancellation.NONE);
        assertFalse(r.isError(), r.text());
        assertEquals("Echo: hi there", r.text());
        assertEquals(List.of(ContentBlock.text("Echo: hi there")), r.content());
    }

    @Test
    void anImageToolReturnsAnImageBlock() throws CancelledException {
        McpToolResult r = set.callTool("mcp__everything__get-tiny-image", mapper().createObjectNode(), Cancellation.NONE);
        assertFalse(r.isError(), r.text());
        ContentBlock.Image image = r.content().stream().filter(b -> b instanceof ContentBlock.Image)
                .map(ContentBlock.Image.class::cast).findFirst().orElseThrow();
        assertEquals("image/png", image.mimeType());
        assertTrue(java.util.Base64.getDecoder().decode(image.data()).length > 100);
        assertTrue(r.text().contains("[image image/png"), r.text());
        assertTrue(r.text().contains("The image above is the MCP logo."), r.text());
    }

    @Test
    void resourceLinksStayLinks() throws CancelledException {
        McpToolResult r = set.callTool("mcp__everything__get-resource-links", mapper().createObjectNode().put("count", 2), Cancellation.NONE);
        assertFalse(r.isError(), r.text());
        List<ContentBlock.ResourceLink> links = r.content().stream().filter(b -> b instanceof ContentBlock.ResourceLink)
                .map(ContentBlock.ResourceLink.class::cast).toList();
        assertEquals(2, links.size(), r.content().toString());
        assertTrue(links.get(0).uri().startsWith("demo://"), links.get(0).uri());
        assertTrue(r.text().contains("[resource link: "), r.text());
    }

    @Test
    void anEmbeddedResourceIsShownAsAResource() throws CancelledException {
        McpTool tool = set.tool("mcp__everything__get-resource-reference").orElseThrow();
        ObjectNode args = mapper().createObjectNode();
        if (tool.specification().parameters().properties().containsKey("resourceType")) args.put("resourceType", "Text");
        if (tool.specification().parameters().properties().containsKey("resourceId")) args.put("resourceId", 1);
        McpToolResult r = set.callTool(tool.name(), args, Cancellation.NONE);
        assertFalse(r.isError(), r.text());
        ContentBlock.Resource resource = r.content().stream().filter(b -> b instanceof ContentBlock.Resource)
                .map(ContentBlock.Resource.class::cast).findFirst().orElseThrow(() -> new AssertionError(r.content()));
        assertNotNull(resource.resource().get("uri"));
        assertTrue(r.text().contains("[resource <" + resource.resource().get("uri").asText() + ">"), r.text());
    }

    @Test
    void theFilesystemServerWritesAndReadsInItsRoot() throws CancelledException, IOException {
        Path file = root.resolve("written.txt");
        McpToolResult w = set.callTool("mcp__files__write_file",
                mapper().createObjectNode().put("path", file.toString()).put("content", "written by MCP"), Cancellation.NONE);
        assertFalse(w.isError(), w.text());
        assertEquals("written by MCP", Files.readString(file));
        McpToolResult r = set.callTool("mcp__files__read_text_file",
                mapper().createObjectNode().put("path", root.resolve("hello.txt").toString()), Cancellation.NONE);
        assertFalse(r.isError(), r.text());
        assertEquals("hello from the test\n", r.text());
        McpToolResult outside = set.callTool("mcp__files__read_text_file",
                mapper().createObjectNode().put("path", "/etc/hostname"), Cancellation.NONE);
        assertTrue(outside.isError(), outside.text());
    }

    @Test
    void badCallsBecomeErrorResults() throws CancelledException {
        McpToolResult noArgs = set.callTool("mcp__everything__echo", mapper().createObjectNode(), Cancellation.NONE);
        assertTrue(noArgs.isError(), noArgs.text());
        McpToolResult unknown = set.callTool("mcp__nobody__nothing", null, Cancellation.NONE);
        assertTrue(unknown.isError());
        assertEquals("There is no MCP tool named mcp__nobody__nothing.", unknown.text());
        McpToolResult notObject = set.callTool("mcp__everything__echo", mapper().createArrayNode(), Cancellation.NONE);
        assertTrue(notObject.isError());
    }

    @Test
    void cancellingAbortsARunningCallPromptly() throws Exception {
        CancellationSource cancel = new CancellationSource();
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            timer.schedule(cancel::cancel, 300, TimeUnit.MILLISECONDS);
            long t0 = System.nanoTime();
            assertThrows(CancelledException.class, () -> set.callTool("mcp__everything__trigger-long-running-operation",
                    mapper().createObjectNode().put("duration", 30).put("steps", 30), cancel));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms < 20_000, "cancelled after " + ms + " ms, long before the 30 s operation would end");
        } finally {
            timer.shutdownNow();
        }
        McpToolResult after = set.callTool("mcp__everything__echo", mapper().createObjectNode().put("message", "still here"), Cancellation.NONE);
        assertEquals("Echo: still here", after.text());
    }

    @Test
    void promptsAreSlashCommands() throws Exception {
        List<AvailableCommand> commands = set.commands();
        AvailableCommand simple = commands.stream().filter(c -> c.name().equals("mcp.everything.simple-prompt")).findFirst()
                .orElseThrow(() -> new AssertionError(commands.toString()));
        assertTrue(simple.description().startsWith("A prompt with no arguments"), simple.description());
        AvailableCommand args = commands.stream().filter(c -> c.name().equals("mcp.everything.args-prompt")).findFirst().orElseThrow();
        assertEquals("city=… [state=…]", args.inputHint());
        assertTrue(commands.stream().allMatch(c -> c.name().matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")), commands.toString());
        assertTrue(set.hasCommand("mcp.everything.simple-prompt"));

        assertEquals("This is a simple prompt without arguments.", set.getPrompt("mcp.everything.simple-prompt", "", Cancellation.NONE));
        assertEquals("What's weather in Paris?", set.getPrompt("mcp.everything.args-prompt", "Paris", Cancellation.NONE));
        assertEquals("What's weather in Austin, TX?", set.getPrompt("mcp.everything.args-prompt", "city=Austin state=TX", Cancellation.NONE));
        McpException missing = assertThrows(McpException.class, () -> set.getPrompt("mcp.everything.args-prompt", "", Cancellation.NONE));
        assertTrue(missing.getMessage().contains("needs city"), missing.getMessage());
        McpException unknown = assertThrows(McpException.class, () -> set.getPrompt("mcp.nobody.nothing", "", Cancellation.NONE));
        assertEquals("There is no MCP prompt /mcp.nobody.nothing.", unknown.getMessage());
    }
}
