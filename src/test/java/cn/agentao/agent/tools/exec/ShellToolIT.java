package cn.agentao.agent.tools.exec;

import cn.agentao.agent.core.tool.CommandRunner;
import cn.agentao.agent.core.tool.SimpleToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.core.tool.UserQuestions;
import cn.agentao.agent.core.tool.local.LocalCommandRunner;
import cn.agentao.agent.core.tool.local.LocalFileAccess;
import cn.agentao.agent.tools.ToolTestSupport;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancellationSource;

import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.core.content.ToolCallContent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static cn.agentao.agent.tools.ToolTestSupport.json;
import static cn.agentao.agent.tools.ToolTestSupport.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(60)
class ShellToolIT {
    @TempDir
    Path dir;
    SimpleToolContext ctx;

    @BeforeEach
    void setUp() {
        ctx = ToolTestSupport.context(dir);
    }

    @AfterEach
    void noStrays() {
        // a failing test must not leave sleepers behind for the next one
        marked("1007").forEach(ProcessHandle::destroyForcibly);
    }

    /** The agent's own descendants whose command line contains the marker. */
    private static List<ProcessHandle> marked(String marker) {
        return ProcessHandle.current().descendants()
                .filter(h -> h.info().commandLine().orElse("").contains(marker))
                .filter(LocalCommandRunner::isRunning)
                .toList();
    }

    private static void waitFor(String marker, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (marked(marker).size() < count) {
            if (System.nanoTime() > deadline) throw new AssertionError("processes did not start: " + marked(marker));
            Thread.sleep(20);
        }
    }

    @Test
    void theTitleToApproveIsTheWholeCommandHoweverLong() throws Exception {
        String command = "ls -la" + " ".repeat(120) + "; touch ../outside/X";
        ToolInvocation inv = new RunShellCommandTool().prepare(json(cn.agentao.agent.util.Json.object().put("command", command).toString()), ctx);
        assertEquals("Run `" + command + "`", inv.title());
    }

    @Test
    void runsInTheWorkingDirectoryAndReportsExitCode() throws Exception {
        ToolInvocation inv = new RunShellCommandTool().prepare(json("{\"command\":\"pwd; echo err >&2; exit 3\"}"), ctx);
        assertEquals("Run `pwd; echo err >&2; exit 3`", inv.title());
        assertEquals(new PermissionRequest.RunCommand("run_shell_command", "pwd; echo err >&2; exit 3", dir), inv.permission());
        ToolResult r = inv.run(ToolProgress.NONE);
        assertTrue(r.isError());
        assertEquals(dir + "\nerr\n[Exit code 3]", r.forModel());
        assertEquals(3, r.rawOutput().get("exitCode").asInt());
    }

    @Test
    void succeedsWithExitZeroAndRunsInAGivenDirectory() throws Exception {
        java.nio.file.Files.createDirectories(dir.resolve("sub"));
        ToolResult r = run(new RunShellCommandTool(), ctx, "{\"command\":\"basename \\\"$PWD\\\"\",\"directory\":\"sub\"}");
        assertFalse(r.isError());
        assertEquals("sub\n[Exit code 0]", r.forModel());
    }

    @Test
    void hasNoStdin() throws Exception {
        ToolResult r = run(new RunShellCommandTool(), ctx, "{\"command\":\"cat; echo done\",\"timeout\":10}");
        assertEquals("done\n[Exit code 0]", r.forModel());
    }

    @Test
    void streamsOutputAsBoundedProgress() throws Exception {
        ToolTestSupport.RecordingProgress progress = new ToolTestSupport.RecordingProgress();
        ToolInvocation inv = new RunShellCommandTool().prepare(json(
                "{\"command\":\"echo first; sleep 0.5; seq 1 100000; sleep 0.3; echo last\"}"), ctx);
        ToolResult r = inv.run(progress);
        assertTrue(progress.updates.size() >= 2, "progress while running: " + progress.updates.size());
        assertTrue(progress.updates.stream().anyMatch(u -> textOf(u).startsWith("first")), "early output shown early");
        for (List<ToolCallContent> u : progress.updates) {
            assertTrue(textOf(u).length() <= LocalCommandRunner.DISPLAY_CHARS + 100, "progress stays bounded");
        }
        assertTrue(progress.lastText().contains("earlier characters omitted"), "omission is announced");
        assertTrue(r.forModel().startsWith("first\n1\n2\n"), "the model gets the beginning");
        assertTrue(r.forModel().contains("characters omitted"), "and a notice");
        assertTrue(r.forModel().endsWith("100000\nlast\n[Exit code 0]"), "and the end");
        assertTrue(r.forModel().length() < RunShellCommandTool.OUTPUT_LIMIT + 200);
        assertTrue(r.rawOutput().get("truncated").asBoolean());
    }

    private static String textOf(List<ToolCallContent> content) {
        return ((cn.agentao.agent.core.content.ContentBlock.Text) ((ToolCallContent.Content) content.get(0)).content()).text();
    }

    @Test
    void timesOutAndKillsTheTree() throws Exception {
        long start = System.nanoTime();
        ToolResult r = run(new RunShellCommandTool(), ctx, "{\"command\":\"echo started; sleep 1007 & sleep 1007; wait\",\"timeout\":1}");
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(elapsedMs < 120_000, "took " + elapsedMs + " ms: the 1 s timeout ended a 1007 s command");
        assertTrue(r.isError());
        assertTrue(r.forModel().startsWith("started\n"));
        assertTrue(r.forModel().contains("[Timed out after 1 s"), r.forModel());
        assertTrue(r.rawOutput().get("timedOut").asBoolean());
        assertEquals(List.of(), marked("1007"), "no descendant survives");
    }

    @Test
    void cancellationKillsTheWholeProcessTree() throws Exception {
        CancellationSource cancel = new CancellationSource();
        SimpleToolContext c = ToolTestSupport.context(dir, cancel);
        ToolInvocation inv = new RunShellCommandTool().prepare(json("{\"command\":\"sleep 1007 & sleep 1007; wait\"}"), c);
        CompletableFuture<ToolResult> result = CompletableFuture.supplyAsync(() -> {
            try {
                return inv.run(ToolProgress.NONE);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        waitFor("1007", 2);
        List<ProcessHandle> before = marked("1007");
        cancel.cancel();
        ToolResult r = result.get(10, TimeUnit.SECONDS);
        assertTrue(r.rawOutput().get("cancelled").asBoolean());
        assertTrue(r.forModel().contains("[Cancelled"), r.forModel());
        for (ProcessHandle h : before) assertFalse(LocalCommandRunner.isRunning(h), "pid " + h.pid() + " survived");
        assertEquals(List.of(), marked("1007"), "no descendant survives");
    }

    @Test
    void descendantsAloneKillTheTreeWithoutAProcessGroup() throws Exception {
        CancellationSource cancel = new CancellationSource();
        SimpleToolContext c = new SimpleToolContext("s", dir, List.of(dir), new LocalFileAccess(),
                new LocalCommandRunner(cn.agentao.agent.childenv.ChildEnvironment.ofAgent(List.of()), false), UserQuestions.UNAVAILABLE, cancel);
        ToolInvocation inv = new RunShellCommandTool().prepare(json(
                "{\"command\":\"(sleep 1007; true) & bash -c 'sleep 1007; true' & sleep 1007; wait\"}"), c);
        CompletableFuture<ToolResult> result = CompletableFuture.supplyAsync(() -> {
            try {
                return inv.run(ToolProgress.NONE);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        waitFor("1007", 4);
        cancel.cancel();
        assertTrue(result.get(10, TimeUnit.SECONDS).rawOutput().get("cancelled").asBoolean());
        assertEquals(List.of(), marked("1007"), "no descendant survives");
    }

    @Test
    void interruptKillsTheTreeAndPropagates() throws Exception {
        ToolInvocation inv = new RunShellCommandTool().prepare(json("{\"command\":\"bash -c 'sleep 1007' & sleep 1007; wait\"}"), ctx);
        CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        Thread worker = Thread.ofPlatform().start(() -> {
            try {
                inv.run(ToolProgress.NONE);
                thrown.complete(null);
            } catch (Throwable t) {
                thrown.complete(t);
            }
        });
        waitFor("1007", 2);
        worker.interrupt();
        Throwable t = thrown.get(10, TimeUnit.SECONDS);
        assertTrue(t instanceof InterruptedException, String.valueOf(t));
        assertEquals(List.of(), marked("1007"), "no descendant survives");
    }

    @Test
    void reportsTheClientTerminalWhenRunThere() throws Exception {
        CommandRunner fake = (spec, listener, cancellation) -> {
            listener.terminal("term-1");
            return new CommandRunner.Result(0, null, "ok\n", false, false, false, "term-1");
        };
        SimpleToolContext c = new SimpleToolContext("s", dir, List.of(dir), new LocalFileAccess(), fake,
                UserQuestions.UNAVAILABLE, Cancellation.NONE);
        ToolTestSupport.RecordingProgress progress = new ToolTestSupport.RecordingProgress();
        ToolResult r = new RunShellCommandTool().prepare(json("{\"command\":\"true\"}"), c).run(progress);
        assertEquals(List.of(new ToolCallContent.Terminal("term-1", null)), progress.updates.get(0));
        assertEquals(List.of(new ToolCallContent.Terminal("term-1", null)), r.display());
        assertEquals("ok\n[Exit code 0]", r.forModel());
    }

    @Test
    void validatesArguments() {
        RunShellCommandTool tool = new RunShellCommandTool();
        assertThrows(ToolException.class, () -> tool.prepare(json("{\"command\":\"  \"}"), ctx));
        assertThrows(ToolException.class, () -> tool.prepare(json("{\"command\":\"ls\",\"timeout\":601}"), ctx));
        assertThrows(ToolException.class, () -> tool.prepare(json("{\"command\":\"ls\",\"directory\":\"nope\"}"), ctx));
    }
}
