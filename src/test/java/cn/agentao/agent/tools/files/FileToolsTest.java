package cn.agentao.agent.tools.files;

import cn.agentao.agent.core.tool.SimpleToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.tools.ToolTestSupport;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.core.content.ToolCallContent;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static cn.agentao.agent.tools.ToolTestSupport.json;
import static cn.agentao.agent.tools.ToolTestSupport.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FileToolsTest {
    @TempDir
    Path dir;
    SimpleToolContext ctx;

    @BeforeEach
    void setUp() {
        ctx = ToolTestSupport.context(dir);
    }

    private static String lines(int n) {
        return IntStream.rangeClosed(1, n).mapToObj(i -> "line " + i).collect(Collectors.joining("\n", "", "\n"));
    }

    // ---- read_file ----

    @Test
    void readsARangeOfLinesNumbered() throws Exception {
        Files.writeString(dir.resolve("a.txt"), lines(10));
        ToolInvocation inv = new ReadFileTool().prepare(json("{\"path\":\"a.txt\",\"offset\":3,\"limit\":2}"), ctx);
        assertEquals("Read a.txt (lines 3-4)", inv.title());
        assertEquals(dir.resolve("a.txt").toString(), inv.locations().get(0).path());
        assertEquals(new PermissionRequest.ReadPath("read_file", dir.resolve("a.txt")), inv.permission());
        ToolResult r = inv.run(ToolProgress.NONE);
        assertFalse(r.isError());
        assertEquals("     3\tline 3\n     4\tline 4\n" + "\n[Showing lines 3-4. The file continues: call read_file with offset=5 to read more.]\n",
                r.forModel());
    }

    @Test
    void readsAWholeSmallFileWithoutNotice() throws Exception {
        Files.writeString(dir.resolve("a.txt"), "one\r\ntwo");
        ToolResult r = run(new ReadFileTool(), ctx, "{\"path\":\"a.txt\"}");
        assertEquals("     1\tone\n     2\ttwo\n", r.forModel());
    }

    @Test
    void cutsLargeFilesWithANoticeSayingHowToContinue() throws Exception {
        Files.writeString(dir.resolve("big.txt"), lines(5000));
        ToolResult r = run(new ReadFileTool(), ctx, "{\"path\":\"big.txt\"}");
        assertTrue(r.forModel().contains("  2000\tline 2000\n"));
        assertFalse(r.forModel().contains("line 2001"));
        assertTrue(r.forModel().contains("call read_file with offset=2001"), r.forModel());
        ToolResult next = run(new ReadFileTool(), ctx, "{\"path\":\"big.txt\",\"offset\":4999}");
        assertEquals("  4999\tline 4999\n  5000\tline 5000\n", next.forModel());
    }

    @Test
    void cutsByCharactersAndLongLines() throws Exception {
        String longLine = "x".repeat(5000);
        Files.writeString(dir.resolve("wide.txt"), (longLine + "\n").repeat(100));
        ToolResult r = run(new ReadFileTool(), ctx, "{\"path\":\"wide.txt\"}");
        assertTrue(r.forModel().length() < ReadFileTool.MAX_CHARS + 500);
        assertTrue(r.forModel().contains("[3000 more characters on this line]"));
        assertTrue(r.forModel().contains("The file continues: call read_file with offset="));
    }

    @Test
    void refusesBinaryFiles() throws Exception {
        Files.write(dir.resolve("img.png"), new byte[]{(byte) 0x89, 'P', 'N', 'G', 0, 0, 1, 2});
        ToolResult r = run(new ReadFileTool(), ctx, "{\"path\":\"img.png\"}");
        assertTrue(r.isError());
        assertTrue(r.forModel().contains("binary"), r.forModel());
    }

    @Test
    void explainsMissingFilesDirectoriesAndOffsetsPastTheEnd() throws Exception {
        assertTrue(run(new ReadFileTool(), ctx, "{\"path\":\"nope.txt\"}").forModel().startsWith("File not found"));
        Files.createDirectories(dir.resolve("sub"));
        assertTrue(run(new ReadFileTool(), ctx, "{\"path\":\"sub\"}").forModel().contains("is a directory"));
        Files.writeString(dir.resolve("a.txt"), lines(3));
        assertTrue(run(new ReadFileTool(), ctx, "{\"path\":\"a.txt\",\"offset\":10}").forModel().contains("past the end"));
    }

    @Test
    void rejectsBadArgumentsWithMessagesForTheModel() {
        ReadFileTool tool = new ReadFileTool();
        ToolException unknown = assertThrows(ToolException.class, () -> tool.prepare(json("{\"file_path\":\"a\"}"), ctx));
        assertTrue(unknown.getMessage().contains("unknown argument 'file_path'"), unknown.getMessage());
        assertThrows(ToolException.class, () -> tool.prepare(json("{}"), ctx));
        assertThrows(ToolException.class, () -> tool.prepare(json("{\"path\":\"a\",\"offset\":0}"), ctx));
        assertThrows(ToolException.class, () -> tool.prepare(json("{\"path\":\"a\",\"limit\":\"10\"}"), ctx));
        assertThrows(ToolException.class, () -> tool.prepare(json("[1]"), ctx));
    }

    @Test
    void expandsHomeAndNormalizesPaths() throws Exception {
        ToolInvocation inv = new ReadFileTool().prepare(json("{\"path\":\"~/x.txt\"}"), ctx);
        assertEquals(Path.of(System.getProperty("user.home"), "x.txt"),
                ((PermissionRequest.ReadPath) inv.permission()).path());
        inv = new ReadFileTool().prepare(json("{\"path\":\"a/../../b.txt\"}"), ctx);
        assertEquals(dir.getParent().resolve("b.txt"), ((PermissionRequest.ReadPath) inv.permission()).path());
    }

    // ---- write_file ----

    /** A file the agent creates is like one the user's editor creates: the user's umask decides its mode. */
    @Test
    void newFilesGetTheUsersUmaskNotAPrivateTempFileMode() throws Exception {
        Path reference = Files.createFile(dir.resolve("made-by-hand.txt")); // the JVM's umask, like any program's
        run(new WriteFileTool(), ctx, "{\"path\":\"made-by-agent.txt\",\"content\":\"x\"}");
        assertEquals(Files.getPosixFilePermissions(reference), Files.getPosixFilePermissions(dir.resolve("made-by-agent.txt")));
    }

    /** /sys refuses new files even to root, like an unwritable project directory does to a user. */
    @Test
    void anUnwritableDirectorySaysPermissionDeniedForTheFileAsked() throws Exception {
        Path target = Path.of("/sys/agent-write-test.txt");
        ToolResult r = run(new WriteFileTool(), ctx, "{\"path\":\"" + target + "\",\"content\":\"x\"}");
        assertTrue(r.isError());
        assertTrue(r.forModel().startsWith("Cannot write " + target + ": "), r.forModel());
        assertTrue(r.forModel().contains("permission denied") || r.forModel().contains("read-only file system"), r.forModel());
        assertFalse(Files.exists(target));
    }

    @Test
    void writesNewFilesWithParentsAndShowsADiff() throws Exception {
        ToolResult r = run(new WriteFileTool(), ctx, "{\"path\":\"new/dir/f.txt\",\"content\":\"hello\\n\"}");
        assertFalse(r.isError());
        assertEquals("hello\n", Files.readString(dir.resolve("new/dir/f.txt")));
        ToolCallContent.Diff diff = assertInstanceOf(ToolCallContent.Diff.class, r.display().get(0));
        assertNull(diff.oldText());
        assertEquals("hello\n", diff.newText());
        assertEquals(dir.resolve("new/dir/f.txt").toString(), diff.path());
    }

    @Test
    void overwritesAndShowsTheOldText() throws Exception {
        Path f = dir.resolve("f.txt");
        Files.writeString(f, "old\n");
        ToolInvocation inv = new WriteFileTool().prepare(json("{\"path\":\"f.txt\",\"content\":\"new\\n\"}"), ctx);
        assertEquals(new PermissionRequest.WritePath("write_file", f), inv.permission());
        ToolResult r = inv.run(ToolProgress.NONE);
        ToolCallContent.Diff diff = assertInstanceOf(ToolCallContent.Diff.class, r.display().get(0));
        assertEquals("old\n", diff.oldText());
        assertEquals("new\n", Files.readString(f));
    }

    @Test
    void writesThroughASymlinkKeepingTheLink() throws Exception {
        Path real = Files.writeString(dir.resolve("real.txt"), "a");
        Path link = Files.createSymbolicLink(dir.resolve("link.txt"), real);
        run(new WriteFileTool(), ctx, "{\"path\":\"link.txt\",\"content\":\"b\"}");
        assertTrue(Files.isSymbolicLink(link));
        assertEquals("b", Files.readString(real));
    }

    // ---- edit ----

    @Test
    void replacesAUniqueString() throws Exception {
        Path f = Files.writeString(dir.resolve("A.java"), "class A {\n  int x = 1;\n}\n");
        ToolResult r = run(new EditTool(), ctx, "{\"path\":\"A.java\",\"old_string\":\"int x = 1;\",\"new_string\":\"int x = 2;\"}");
        assertFalse(r.isError(), r.forModel());
        assertEquals("class A {\n  int x = 2;\n}\n", Files.readString(f));
        ToolCallContent.Diff diff = assertInstanceOf(ToolCallContent.Diff.class, r.display().get(0));
        assertEquals("class A {\n  int x = 1;\n}\n", diff.oldText());
        assertEquals("class A {\n  int x = 2;\n}\n", diff.newText());
    }

    @Test
    void refusesAnAmbiguousEditUnlessReplaceAll() throws Exception {
        Path f = Files.writeString(dir.resolve("a.txt"), "foo bar foo\n");
        ToolResult r = run(new EditTool(), ctx, "{\"path\":\"a.txt\",\"old_string\":\"foo\",\"new_string\":\"baz\"}");
        assertTrue(r.isError());
        assertTrue(r.forModel().contains("occurs 2 times"), r.forModel());
        assertEquals("foo bar foo\n", Files.readString(f));
        r = run(new EditTool(), ctx, "{\"path\":\"a.txt\",\"old_string\":\"foo\",\"new_string\":\"baz\",\"replace_all\":true}");
        assertFalse(r.isError());
        assertEquals("baz bar baz\n", Files.readString(f));
    }

    @Test
    void refusesWhenNotFound() throws Exception {
        Path f = Files.writeString(dir.resolve("a.txt"), "hello\n");
        ToolResult r = run(new EditTool(), ctx, "{\"path\":\"a.txt\",\"old_string\":\"bye\",\"new_string\":\"x\"}");
        assertTrue(r.isError());
        assertTrue(r.forModel().contains("not found"));
        assertEquals("hello\n", Files.readString(f));
        assertTrue(run(new EditTool(), ctx, "{\"path\":\"missing.txt\",\"old_string\":\"a\",\"new_string\":\"b\"}").isError());
    }

    @Test
    void multipleEditsAreAllOrNothing() throws Exception {
        Path f = Files.writeString(dir.resolve("a.txt"), "one\ntwo\nthree\n");
        ToolResult failed = run(new EditTool(), ctx, """
                {"path":"a.txt","edits":[
                  {"old_string":"one","new_string":"1"},
                  {"old_string":"two","new_string":"2"},
                  {"old_string":"four","new_string":"4"}]}""");
        assertTrue(failed.isError());
        assertTrue(failed.forModel().startsWith("Edit 3 of 3"), failed.forModel());
        assertEquals("one\ntwo\nthree\n", Files.readString(f), "nothing written when one edit fails");

        ToolResult ok = run(new EditTool(), ctx, """
                {"path":"a.txt","edits":[
                  {"old_string":"one","new_string":"1"},
                  {"old_string":"1\\ntwo","new_string":"1\\n2"}]}""");
        assertFalse(ok.isError(), ok.forModel());
        assertEquals("1\n2\nthree\n", Files.readString(f), "later edits see earlier ones");
    }

    @Test
    void matchesLfStringsInCrlfFiles() throws Exception {
        Path f = Files.writeString(dir.resolve("w.txt"), "a\r\nb\r\nc\r\n");
        ToolResult r = run(new EditTool(), ctx, "{\"path\":\"w.txt\",\"old_string\":\"a\\nb\",\"new_string\":\"a\\nB\"}");
        assertFalse(r.isError(), r.forModel());
        assertEquals("a\r\nB\r\nc\r\n", Files.readString(f));
    }

    @Test
    void validatesEditArguments() {
        EditTool tool = new EditTool();
        assertThrows(ToolException.class, () -> tool.prepare(json("{\"path\":\"a\",\"old_string\":\"\",\"new_string\":\"x\"}"), ctx));
        assertThrows(ToolException.class, () -> tool.prepare(json("{\"path\":\"a\",\"old_string\":\"x\",\"new_string\":\"x\"}"), ctx));
        assertThrows(ToolException.class, () -> tool.prepare(json("{\"path\":\"a\",\"old_string\":\"x\"}"), ctx));
        assertThrows(ToolException.class, () -> tool.prepare(json("{\"path\":\"a\",\"edits\":[]}"), ctx));
        assertThrows(ToolException.class, () -> tool.prepare(json(
                "{\"path\":\"a\",\"old_string\":\"x\",\"new_string\":\"y\",\"edits\":[{\"old_string\":\"x\",\"new_string\":\"y\"}]}"), ctx));
        assertThrows(ToolException.class, () -> tool.prepare(json(
                "{\"path\":\"a\",\"edits\":[{\"old\":\"x\",\"old_string\":\"x\",\"new_string\":\"y\"}]}"), ctx));
    }

    @Test
    void refusesToEditNonUtf8Text() throws Exception {
        Files.write(dir.resolve("latin1.txt"), "caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
        ToolResult r = run(new EditTool(), ctx, "{\"path\":\"latin1.txt\",\"old_string\":\"caf\",\"new_string\":\"tea\"}");
        assertTrue(r.isError());
        assertTrue(r.forModel().contains("not UTF-8"), r.forModel());
    }

    // ---- list_directory ----

    @Test
    void listsDirectoriesFirst() throws Exception {
        Files.createDirectories(dir.resolve("zdir"));
        Files.writeString(dir.resolve("a.txt"), "12345");
        Files.createSymbolicLink(dir.resolve("link"), dir.resolve("a.txt"));
        ToolResult r = run(new ListDirectoryTool(), ctx, "{}");
        assertEquals(dir + ":\nzdir/\na.txt  (5 bytes)\nlink@\n", r.forModel());
        assertTrue(run(new ListDirectoryTool(), ctx, "{\"path\":\"a.txt\"}").isError());
    }
}
