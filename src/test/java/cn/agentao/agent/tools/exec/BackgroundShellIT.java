package cn.agentao.agent.tools.exec;

import cn.agentao.agent.core.tool.BackgroundProcesses;
import cn.agentao.agent.core.tool.SimpleToolContext;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.core.tool.UserQuestions;
import cn.agentao.agent.core.tool.local.LocalCommandRunner;
import cn.agentao.agent.core.tool.local.LocalFileAccess;
import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.sandbox.Confinement;
import cn.agentao.agent.sandbox.SandboxPolicy;
import cn.agentao.agent.sandbox.Sandboxes;
import cn.agentao.agent.util.CancellationSource;
import cn.agentao.agent.util.Json;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static cn.agentao.agent.tools.ToolTestSupport.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Commands in the background with real processes: started, read, ended, bounded, confined, and none left behind. */
@Timeout(120)
class BackgroundShellIT {
    @TempDir
    Path dir;
    final BackgroundProcesses table = new BackgroundProcesses();

    @AfterEach
    void end() {
        table.close();
    }

    private ToolContext context(Confinement box) {
        return new SimpleToolContext("s1", dir, List.of(dir), new LocalFileAccess(), new LocalCommandRunner(),
                UserQuestions.UNAVAILABLE, new CancellationSource(), () -> box, table);
    }

    private static String start(ToolContext ctx, String command) throws Exception {
        return run(new RunShellCommandTool(), ctx, Json.object().put("command", command).put("background", true).toString()).forModel();
    }

    private static ToolResult output(ToolContext ctx, String id) throws Exception {
        return run(BackgroundCommandTool.output(), ctx, Json.object().put("id", id).toString());
    }

    /** Reads until {@code pattern} shows in what was read (after {@code before}), returns all that was read. */
    private static String readUntil(ToolContext ctx, String id, String before, Pattern pattern) throws Exception {
        StringBuilder all = new StringBuilder(before);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!pattern.matcher(all).find()) {
            if (System.nanoTime() > deadline) throw new AssertionError("never printed " + pattern + ": " + all);
            all.append(output(ctx, id).forModel());
            Thread.sleep(50);
        }
        return all.toString();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("never: " + what);
            Thread.sleep(20);
        }
    }

    /** The processes of process group {@code pgid}, from /proc. */
    static List<Long> group(long pgid) {
        List<Long> members = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.toList()) {
                if (!p.getFileName().toString().chars().allMatch(Character::isDigit)) continue;
                try {
                    String stat = Files.readString(p.resolve("stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    if (Long.parseLong(f[2]) == pgid && !f[0].equals("Z")) members.add(Long.parseLong(p.getFileName().toString()));
                } catch (IOException | RuntimeException gone) {
                    // ended meanwhile
                }
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return members;
    }

    /** The process {@code pid} and every process it started, as they are now. */
    static List<ProcessHandle> tree(long pid) {
        List<ProcessHandle> all = new ArrayList<>();
        ProcessHandle.of(pid).ifPresent(h -> {
            all.add(h);
            h.descendants().forEach(all::add);
        });
        return all;
    }

    static boolean noneRuns(List<ProcessHandle> handles) {
        return handles.stream().noneMatch(LocalCommandRunner::isRunning);
    }

    @Test
    void aServerStartedInTheBackgroundIsReadAndKilledWithWhatItStarted() throws Exception {
        ToolContext ctx = context(null);
        String started = start(ctx, "sleep 1001 & python3 -u -m http.server 0 --bind 127.0.0.1");
        assertTrue(started.startsWith("Started in the background as bg1"), started);
        String text = readUntil(ctx, "bg1", started, Pattern.compile("port (\\d+)"));
        Matcher m = Pattern.compile("port (\\d+)").matcher(text);
        assertTrue(m.find());
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + m.group(1) + "/no-such-page")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(404, r.statusCode());
        assertTrue(readUntil(ctx, "bg1", "", Pattern.compile("GET /no-such-page")).contains("bg1 is still running"));

        long pid = table.get("bg1").orElseThrow().process().pid();
        List<ProcessHandle> tree = tree(pid);
        assertTrue(tree.size() >= 2, "the server and the sleep it started: " + tree);
        String killed = run(BackgroundCommandTool.kill(), ctx, "{\"id\":\"bg1\"}").forModel();
        assertTrue(killed.contains("bg1 was ended by shell_kill"), killed);
        await("the group and every process of it ended", () -> group(pid).isEmpty() && noneRuns(tree));
        assertTrue(output(ctx, "bg1").forModel().contains("was ended by shell_kill"));
    }

    @Test
    void closingTheSessionEndsEveryCommandItStartedInTheBackground() throws Exception {
        ToolContext ctx = context(null);
        start(ctx, "sleep 1002 & sleep 1003");
        start(ctx, "while true; do sleep 1; done");
        List<ProcessHandle> all = new ArrayList<>();
        List<Long> groups = new ArrayList<>();
        for (BackgroundProcesses.Entry e : table.running()) {
            groups.add(e.process().pid());
            await("its children started", () -> tree(e.process().pid()).size() >= 2);
            all.addAll(tree(e.process().pid()));
        }
        assertEquals(2, groups.size());
        table.close();
        await("none left", () -> noneRuns(all) && groups.stream().allMatch(g -> group(g).isEmpty()));
        ToolException after = assertThrows(ToolException.class, () -> table.start("true", dir, false, () -> null, null));
        assertTrue(after.getMessage().contains("closing"), after.getMessage());
    }

    @Test
    void pastTheLimitAStartIsRefusedUntilOneEnds() throws Exception {
        ToolContext ctx = context(null);
        for (int i = 1; i <= BackgroundProcesses.LIMIT; i++) assertTrue(start(ctx, "sleep 100" + i).contains("bg" + i));
        ToolResult refused = run(new RunShellCommandTool(), ctx, "{\"command\":\"sleep 1099\",\"background\":true}");
        assertTrue(refused.isError());
        assertTrue(refused.forModel().contains(BackgroundProcesses.LIMIT + " background commands are already running")
                && refused.forModel().contains("shell_kill"), refused.forModel());
        run(BackgroundCommandTool.kill(), ctx, "{\"id\":\"bg2\"}");
        assertTrue(start(ctx, "sleep 1099").contains("bg" + (BackgroundProcesses.LIMIT + 1)));
    }

    @Test
    void outputBeyondWhatIsKeptIsDroppedOldestFirstAndCounted() throws Exception {
        ToolContext ctx = context(null);
        start(ctx, "sleep 0.5; head -c 100000 /dev/zero | tr '\\0' x; echo; echo LAST; exit 3");
        BackgroundProcesses.Entry e = table.get("bg1").orElseThrow();
        await("it ended", () -> !e.process().running());
        String text = output(ctx, "bg1").forModel();
        Matcher m = Pattern.compile("\\[(\\d+) earlier characters were dropped").matcher(text);
        assertTrue(m.find(), text);
        assertTrue(Long.parseLong(m.group(1)) > 0);
        assertTrue(text.contains("LAST\n") && text.contains("bg1 has exited with code 3"), text.substring(text.length() - 200));
        assertTrue(text.length() < 100_000, "bounded");
        assertTrue(output(ctx, "bg1").forModel().startsWith("(no new output)"), "read once");
    }

    @Test
    void anUnknownIdIsAClearError() throws Exception {
        ToolContext ctx = context(null);
        ToolException e = assertThrows(ToolException.class, () -> output(ctx, "bg7"));
        assertTrue(e.getMessage().contains("no background command bg7"), e.getMessage());
    }

    @Test
    void inTheSandboxABackgroundCommandWritesInsideTheWorkspaceOnly() throws Exception {
        Sandboxes sandboxes = Sandboxes.fromEnvironment(System.getenv());
        assumeTrue(sandboxes.available(), "a sandbox works here");
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Confinement box = new Confinement(sandboxes.sandbox().orElseThrow(),
                SandboxPolicy.forMode(Mode.WORKSPACE_WRITE, List.of(ws)).orElseThrow());
        ToolContext ctx = new SimpleToolContext("s1", ws, List.of(ws), new LocalFileAccess(), new LocalCommandRunner(),
                UserQuestions.UNAVAILABLE, new CancellationSource(), () -> box, table);
        String started = start(ctx, "echo in > inside.txt; echo out > " + outside + "/x.txt; echo rc=$?; exec sleep 1004");
        String text = readUntil(ctx, "bg1", started, Pattern.compile("rc=\\d"));
        assertTrue(text.contains("rc=1"), text);
        assertTrue(Files.exists(ws.resolve("inside.txt")));
        assertFalse(Files.exists(outside.resolve("x.txt")));
        assertTrue(table.get("bg1").orElseThrow().describe().contains("sandboxed"));
        List<ProcessHandle> all = tree(table.get("bg1").orElseThrow().process().pid());
        run(BackgroundCommandTool.kill(), ctx, "{\"id\":\"bg1\"}");
        await("the sandbox and what ran in it ended", () -> noneRuns(all));
    }
}
