package cn.agentao.agent.tools.search;

import cn.agentao.agent.core.tool.SimpleToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.tools.ToolTestSupport;
import cn.agentao.agent.util.CancellationSource;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

import static cn.agentao.agent.tools.ToolTestSupport.json;
import static cn.agentao.agent.tools.ToolTestSupport.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SearchToolsTest {
    @TempDir
    Path dir;
    SimpleToolContext ctx;

    @BeforeEach
    void tree() throws Exception {
        ctx = ToolTestSupport.context(dir);
        Files.createDirectories(dir.resolve(".git/objects"));
        Files.writeString(dir.resolve(".git/config"), "needle in git\n");
        Files.writeString(dir.resolve(".gitignore"), """
                # build output
                target/
                *.log
                !keep.log
                /root-only.txt
                docs/generated/**
                """);
        write("src/Main.java", "class Main { // needle\n}\n", 3000);
        write("src/deep/er/Util.java", "class Util {\n  String s = \"NEEDLE\";\n}\n", 2000);
        write("src/deep/notes.md", "a needle in markdown\n", 1000);
        write("target/classes/Main.class", "needle compiled\n", 1000);
        write("app.log", "needle log\n", 1000);
        write("keep.log", "needle kept log\n", 1000);
        write("root-only.txt", "needle at root\n", 1000);
        write("src/root-only.txt", "needle nested\n", 1000);
        write("docs/generated/api.md", "needle generated\n", 1000);
        write("docs/guide.md", "needle guide\n", 1000);
        Files.write(dir.resolve("src/blob.bin"), new byte[]{'n', 'e', 'e', 'd', 'l', 'e', 0, 1, 2});
    }

    private void write(String rel, String content, long mtimeSeconds) throws Exception {
        Path p = dir.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
        Files.setLastModifiedTime(p, FileTime.fromMillis(mtimeSeconds * 1000));
    }

    private static List<String> lines(ToolResult r) {
        return r.forModel().lines().filter(l -> !l.startsWith("[")).toList();
    }

    // ---- glob ----

    @Test
    void globMatchesAcrossDirectoriesIncludingZero() throws Exception {
        ToolResult r = run(new GlobTool(), ctx, "{\"pattern\":\"src/**/*.java\",\"sort\":\"name\"}");
        assertEquals(List.of("src/Main.java", "src/deep/er/Util.java"), lines(r));
    }

    @Test
    void globSortsNewestFirstByDefault() throws Exception {
        ToolResult r = run(new GlobTool(), ctx, "{\"pattern\":\"**/*.java\"}");
        assertEquals(List.of("src/Main.java", "src/deep/er/Util.java"), lines(r));
    }

    @Test
    void globHonoursGitignoreUnlessAsked() throws Exception {
        assertEquals(List.of("docs/guide.md", "src/deep/notes.md"),
                lines(run(new GlobTool(), ctx, "{\"pattern\":\"**/*.md\",\"sort\":\"name\"}")));
        assertEquals(List.of("docs/generated/api.md", "docs/guide.md", "src/deep/notes.md"),
                lines(run(new GlobTool(), ctx, "{\"pattern\":\"**/*.md\",\"sort\":\"name\",\"include_ignored\":true}")));
        assertTrue(run(new GlobTool(), ctx, "{\"pattern\":\"**/config\"}").forModel().startsWith("No files match"),
                ".git is never searched");
    }

    @Test
    void globLimitsWithANotice() throws Exception {
        ToolResult r = run(new GlobTool(), ctx, "{\"pattern\":\"**\",\"limit\":2}");
        assertEquals(2, lines(r).size());
        assertTrue(r.forModel().contains("more matches not shown"), r.forModel());
    }

    @Test
    void globAcceptsALeadingDirectoryAndBraces() throws Exception {
        ToolInvocation inv = new GlobTool().prepare(json("{\"pattern\":\"src/deep/**/*.{md,java}\",\"sort\":\"name\"}"), ctx);
        assertEquals("Find src/deep/**/*.{md,java}", inv.title());
        assertEquals(List.of("src/deep/er/Util.java", "src/deep/notes.md"), lines(inv.run(ToolProgress.NONE)));
    }

    // ---- grep ----

    @Test
    void grepFindsMatchesHonouringGitignoreAndSkippingGitAndBinaries() throws Exception {
        ToolResult r = run(new GrepTool(), ctx, "{\"pattern\":\"needle\"}");
        List<String> found = lines(r);
        assertTrue(found.contains("src/Main.java:1:class Main { // needle"), found.toString());
        assertTrue(found.contains("keep.log:1:needle kept log"), "negated pattern re-includes");
        assertTrue(found.contains("src/root-only.txt:1:needle nested"), "anchored pattern only at its root");
        assertTrue(found.contains("docs/guide.md:1:needle guide"));
        for (String ignored : List.of("target/", "app.log", ".git/", "root-only.txt:", "docs/generated", "blob.bin")) {
            assertTrue(found.stream().noneMatch(l -> l.startsWith(ignored)), ignored + " in " + found);
        }
    }

    @Test
    void grepCaseInsensitiveAndGlobFilter() throws Exception {
        ToolResult r = run(new GrepTool(), ctx, "{\"pattern\":\"needle\",\"case_insensitive\":true,\"glob\":\"*.java\"}");
        assertEquals(List.of("src/Main.java:1:class Main { // needle", "src/deep/er/Util.java:2:  String s = \"NEEDLE\";"),
                lines(r));
        ToolResult byPath = run(new GrepTool(), ctx, "{\"pattern\":\"needle\",\"glob\":\"src/deep/**\"}");
        assertEquals(List.of("src/deep/notes.md:1:a needle in markdown"), lines(byPath));
    }

    @Test
    void grepIncludesIgnoredWhenAsked() throws Exception {
        ToolResult r = run(new GrepTool(), ctx, "{\"pattern\":\"compiled\",\"include_ignored\":true}");
        assertEquals(List.of("target/classes/Main.class:1:needle compiled"), lines(r));
    }

    @Test
    void grepSearchesASingleFileAndBoundsOutput() throws Exception {
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 500; i++) many.append("hit ").append(i).append('\n');
        Files.writeString(dir.resolve("many.txt"), many);
        ToolResult r = run(new GrepTool(), ctx, "{\"pattern\":\"hit\",\"path\":\"many.txt\",\"max_matches\":10}");
        assertEquals(10, lines(r).size());
        assertTrue(r.forModel().contains("Output stopped at 10 matching lines; there are more"), r.forModel());
    }

    @Test
    void grepRejectsBadRegex() {
        ToolException e = assertThrows(ToolException.class, () -> new GrepTool().prepare(json("{\"pattern\":\"(unclosed\"}"), ctx));
        assertTrue(e.getMessage().contains("invalid regular expression"));
    }

    @Test
    void grepHonoursGitignoreAboveTheSearchDirectory() throws Exception {
        write("src/debug.log", "needle in nested log\n", 1000);
        ToolResult r = run(new GrepTool(), ctx, "{\"pattern\":\"needle\",\"path\":\"src\"}");
        assertFalse(r.forModel().contains("debug.log"), r.forModel());
        assertTrue(r.forModel().contains("src/Main.java:1:"));
    }

    @Test
    void grepStopsACatastrophicRegexOnCancel() throws Exception {
        // polynomial blow-up: O(n^12); the b on a line of its own, so the file holds every literal the regex needs
        Files.writeString(dir.resolve("evil.txt"), "a".repeat(200) + "\nb\n");
        CancellationSource cancel = new CancellationSource();
        SimpleToolContext c = ToolTestSupport.context(dir, cancel);
        ToolInvocation inv = new GrepTool().prepare(json("{\"pattern\":\"(.*a){12}b\",\"path\":\"evil.txt\"}"), c);
        Thread canceller = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException ignored) {
            }
            cancel.cancel();
        });
        long start = System.nanoTime();
        assertThrows(InterruptedException.class, () -> inv.run(ToolProgress.NONE));
        assertTrue(System.nanoTime() - start < 5_000_000_000L, "stopped promptly");
        canceller.join();
    }

    // ---- .gitignore rules ----

    @Test
    void gitignoreSemantics() {
        GitIgnore g = GitIgnore.parse(dir, List.of("*.o", "!keep.o", "build/", "/top.txt", "a/**/b", "\\#hash",
                "trailing\\ ", "doc/*.md", "# comment", ""));
        assertEquals(Boolean.TRUE, g.match("x/y.o", false));
        assertEquals(Boolean.FALSE, g.match("x/keep.o", false));
        assertEquals(Boolean.TRUE, g.match("x/build", true));
        assertEquals(null, g.match("x/build", false), "dir-only pattern does not match a file");
        assertEquals(Boolean.TRUE, g.match("top.txt", false));
        assertEquals(null, g.match("x/top.txt", false));
        assertEquals(Boolean.TRUE, g.match("a/b", true));
        assertEquals(Boolean.TRUE, g.match("a/x/y/b", false));
        assertEquals(Boolean.TRUE, g.match("#hash", false));
        assertEquals(Boolean.TRUE, g.match("trailing ", false));
        assertEquals(Boolean.TRUE, g.match("doc/x.md", false));
        assertEquals(null, g.match("doc/sub/x.md", false), "* does not cross /");
        assertEquals(null, g.match("comment", false));
    }
}
