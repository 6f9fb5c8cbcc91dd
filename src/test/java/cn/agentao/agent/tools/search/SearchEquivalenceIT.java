package cn.agentao.agent.tools.search;

import cn.agentao.agent.core.tool.SimpleToolContext;
import cn.agentao.agent.core.tool.TextFiles;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.tools.ToolPaths;
import cn.agentao.agent.tools.ToolTestSupport;
import cn.agentao.agent.util.CancellationSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fast grep (parallel workers, literal prefilter over bytes by libc or by Java, ripgrep listing the tree and
 * the files to read) gives exactly what a plain search gives — one file after another, every line decoded and handed to the regex —
 * and glob with ripgrep exactly what it gives without, on a generated tree with ignore files, binaries, oversized
 * files, symbolic links in and out, empty and hidden directories, nested {@code .git}, CRLF and lone CR line ends,
 * invalid UTF-8 and non-ASCII text. ripgrep is installed by bin/test (scripts/install-test-tools.sh).
 */
class SearchEquivalenceIT {
    @TempDir
    Path dir;
    @TempDir
    Path home;
    SimpleToolContext ctx;

    static final List<String> PATTERNS = List.of(
            "needle", "NEEDLE", "need(le|ful)", "ne+dle", "colou?r", "x{0,2}yz", "ab+c", "\\bword\\b", "^start",
            "end$", "\\Qa.b*c\\E", "a\\.b", "(?i)needle", "needle(?=s)", "(?<!x)needle", "[nN]eedle", "n.e.d.l.e",
            "über", "日本語", "\uFFFD", "\\w+Lock", "(foo|bar|baz)qux", "(?:alpha)?beta", "k", "s", "Kelvin", "ſ",
            "\\p{L}ß", "secret-content", "TODO|FIXME", "a|", "lock\\b", "\\d{3}-\\d{4}", "x*", "line \\d+7\\b",
            "synchronized\\s+void\\s+\\w+Lock", "word.*needle", "need(le|ful)s? .*k", "colou?r \\w+ r");

    @BeforeEach
    void tree() throws Exception {
        ctx = ToolTestSupport.context(dir);
        Random random = new Random(42);
        Files.writeString(dir.resolve(".gitignore"), "*.log\n!keep.log\nbuild/\n/top-only.txt\n");
        write("a/.gitignore", "ignored-here.txt\n!b/\n");
        write("a/ignored-here.txt", "needle ignored\n");
        write("a/b/ok.txt", "needle ok\r\nsecond needle line\rthird needles\n");
        write("build/out.txt", "needle built\n");
        write("app.log", "needle log\n");
        write("keep.log", "needle kept\n");
        write("top-only.txt", "needle top\n");
        write("sub/top-only.txt", "needle sub\n");
        write("unicode/über.txt", "Straße über alles\nKELVIN \u212A and ſ long s\n日本語のテキスト needle\n");
        write("unicode/mixed.txt", "colour color colouur\nxyz xxyz xxxyz\nabc abbc ac\nword words sword\nstart end\n"
                + "a.b*c a.b ab\nneedles needle xneedle\nfooqux barqux bazqux quxfoo\nalphabeta beta\n"
                + "synchronized void doLock() TODO FIXME\n555-1234 lock locked\n");
        Files.write(dir.resolve("binary.bin"), new byte[]{'n', 'e', 'e', 'd', 'l', 'e', 0, 1, 2});
        byte[] lateNul = ("needle early\n" + "-".repeat(9000) + "\n").getBytes(StandardCharsets.UTF_8);
        lateNul[lateNul.length - 2] = 0; // a NUL after the sniffed head: still text
        Files.write(dir.resolve("late-nul.txt"), lateNul);
        byte[] invalid = {'n', 'e', 'e', 'd', 'l', 'e', (byte) 0xE2, (byte) 0x82, '\n', (byte) 0xC3, 'n', 'e', 'e',
                'd', 'l', 'e', (byte) 0xFF, '\r', (byte) 0xF0, (byte) 0x9F, '\n', 'e', 'n', 'd'};
        Files.write(dir.resolve("invalid-utf8.txt"), invalid);
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 3000; i++) {
            many.append("line ").append(i).append(i % 7 == 0 ? " needle" : "").append(i % 11 == 0 ? "\r\n" : "\n");
        }
        write("many/lines.txt", many.toString());
        write("many/long.txt", "needle " + "y".repeat(1000) + "\n");
        for (int f = 0; f < 60; f++) { // random bytes: odd encodings, line ends, words
            byte[] b = new byte[random.nextInt(3000)];
            String[] words = {"needle", "NEEDLE", "word", "colour", "über", "Lock", "TODO", "\r", "\n", "\r\n", "k"};
            int i = 0;
            while (i < b.length) {
                if (random.nextInt(4) == 0) {
                    byte[] w = words[random.nextInt(words.length)].getBytes(StandardCharsets.UTF_8);
                    for (int k = 0; k < w.length && i < b.length; k++) b[i++] = w[k];
                } else {
                    int kind = random.nextInt(10);
                    b[i++] = (byte) (kind == 0 ? 0x80 | random.nextInt(64) : kind == 1 ? 0xC0 | random.nextInt(64)
                            : 32 + random.nextInt(95));
                }
            }
            Path p = dir.resolve("random/r" + f + ".txt");
            Files.createDirectories(p.getParent());
            Files.write(p, b);
        }
        byte[] big = new byte[(int) GrepTool.MAX_FILE_BYTES + 1];
        java.util.Arrays.fill(big, (byte) 'a');
        System.arraycopy("needle\n".getBytes(StandardCharsets.UTF_8), 0, big, 0, 7);
        Files.write(dir.resolve("too-big.txt"), big);
        // links out of the workspace: to a secret in HOME and to a directory there
        Files.writeString(home.resolve("secret.txt"), "secret-content needle\n");
        Files.createDirectories(home.resolve("dir"));
        Files.writeString(home.resolve("dir/inner.txt"), "secret-content needle in dir\n");
        Files.createSymbolicLink(dir.resolve("link-to-secret.txt"), home.resolve("secret.txt"));
        Files.createSymbolicLink(dir.resolve("link-to-dir"), home.resolve("dir"));
        Files.createSymbolicLink(dir.resolve("a/b/.gitignore"), home.resolve("secret.txt"));
        // links inside the tree, an empty directory, hidden files, .git directories and a .git file, a FIFO
        Files.createSymbolicLink(dir.resolve("many/link-in.txt"), dir.resolve("many/long.txt"));
        Files.createSymbolicLink(dir.resolve("link-in-dir"), dir.resolve("unicode"));
        Files.createDirectories(dir.resolve("empty.txt.d/inner-empty"));
        write(".hidden/needle.txt", "needle hidden\n");
        write(".git/config", "needle in .git\n");
        write("nested/.git/HEAD", "needle nested git\n");
        write("nested/.gitignore", "*.tmp\n");
        write("nested/x.tmp", "needle tmp\n");
        write("nested/y.txt", "needle nested\n");
        write("worktree/.git", "gitdir: needle\n");
        write("only-ignored/z.log", "needle only ignored\n");
        new ProcessBuilder("mkfifo", dir.resolve("many/fifo.txt").toString()).start().waitFor();
        // ignore files that never end: a link to /dev/zero, a FIFO
        write("endless/a.txt", "needle endless\n");
        Files.createSymbolicLink(dir.resolve("endless/.gitignore"), Path.of("/dev/zero"));
        write("blocking/a.txt", "needle blocking\n");
        new ProcessBuilder("mkfifo", dir.resolve("blocking/.gitignore").toString()).start().waitFor();
        // distinct modification times (some before 1970, with nanoseconds; links their own), so that glob's newest-first
        // order depends on every path reading them alike
        try (var all = Files.walk(dir)) {
            for (Path p : all.sorted().toList()) {
                var kind = Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (kind.isOther()) continue; // a FIFO: setting its times opens it, which waits for a writer
                long seconds = random.nextInt(2_000_000_000) - 100_000_000L;
                java.nio.file.attribute.FileTime t = java.nio.file.attribute.FileTime.from(
                        java.time.Instant.ofEpochSecond(seconds, random.nextInt(1_000_000_000)));
                Files.getFileAttributeView(p, java.nio.file.attribute.BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                        .setTimes(t, null, null);
            }
        }
    }

    private void write(String rel, String content) throws Exception {
        Path p = dir.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
    }

    /** The times a listing reads with the directory open are the file system's, to the millisecond, links their own. */
    @Test
    void readdirTimesAreTheEntriesOwnTimes() throws Exception {
        if (Runtime.version().feature() < 22) return;
        int compared = 0;
        try (var dirs = Files.walk(dir)) {
            for (Path d : dirs.filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)).toList()) {
                List<Libc.Dirent> listed = Libc.libc().list(d, true);
                if (listed == null) continue; // a name that is not ASCII: the JDK lists that directory
                for (Libc.Dirent e : listed) {
                    long expected = Files.getLastModifiedTime(d.resolve(e.name()), LinkOption.NOFOLLOW_LINKS).toMillis();
                    assertEquals(expected, e.modifiedMillis(), d.resolve(e.name()).toString());
                    compared++;
                }
                for (Libc.Dirent e : Libc.libc().list(d)) assertEquals(Libc.NO_TIME, e.modifiedMillis(), "no times unless asked");
            }
        }
        assertTrue(compared > 100, "entries compared: " + compared);
    }

    /** The tests' JVM, as the launcher's, allows native calls: the C library's functions are what the searches here use. */
    @Test
    void theCLibraryIsUsedWhereTheRuntimeHasFfm() throws Exception {
        if (Runtime.version().feature() < 22) return; // Java 21: FFM is a preview there, the Java scans alone run
        assertNotNull(Libc.libc(), "surefire runs with --enable-native-access (pom.xml), as bin/agent does");
        java.nio.ByteBuffer text = java.nio.ByteBuffer.allocateDirect(64);
        text.put("abc\0needle needle".getBytes(StandardCharsets.UTF_8)).position(5).limit(9); // indexes ignore both
        java.nio.ByteBuffer needle = java.nio.ByteBuffer.allocateDirect(6).put("needle".getBytes(StandardCharsets.UTF_8)).flip();
        assertEquals(3, Libc.libc().indexOf(text, 0, 20, (byte) 0));
        assertEquals(-1, Libc.libc().indexOf(text, 4, 17, (byte) 0));
        assertEquals(4, Libc.libc().indexOf(text, 0, 20, needle));
        assertEquals(11, Libc.libc().indexOf(text, 5, 20, needle));
        assertEquals(-1, Libc.libc().indexOf(text, 5, 16, needle), "a needle running past the end is not found");
        assertEquals(-1, Libc.libc().indexOf(text, 12, 12, (byte) 'n'));
        List<Libc.Dirent> many = Libc.libc().list(dir.resolve("many"));
        assertNotNull(many);
        assertEquals(java.util.Set.of("lines.txt/" + Libc.DT_REG, "long.txt/" + Libc.DT_REG, "link-in.txt/10", "fifo.txt/1"),
                many.stream().map(d -> d.name() + "/" + d.type()).collect(java.util.stream.Collectors.toSet()),
                "names with their types (a link: 10, a FIFO: 1), without . and ..");
        assertNull(Libc.libc().list(dir.resolve("unicode")), "a name that is not ASCII: left to the JDK");
        assertNull(Libc.libc().list(dir.resolve("no-such-dir")));
        // what the grep tool asks for: linked in the background, then there
        Libc linked = Libc.ifLinked();
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); linked == null && System.nanoTime() < end; ) {
            Thread.sleep(5);
            linked = Libc.ifLinked();
        }
        assertEquals(Libc.libc(), linked);
    }

    @Test
    void everyPathGivesTheSameResult() throws Exception {
        for (String regex : PATTERNS) {
            for (boolean ignoreCase : new boolean[]{false, true}) {
                Pattern pattern = Pattern.compile(regex, ignoreCase ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
                for (int max : new int[]{3, 200}) {
                    for (boolean ignored : new boolean[]{false, true}) {
                        String expected = plain(pattern, max, ignored);
                        String label = regex + (ignoreCase ? " (i)" : "") + " max " + max + (ignored ? " +ignored" : "");
                        assertEquals(expected, fast(pattern, false, max, 0, ignored), "no prefilter, inline: " + label);
                        assertEquals(expected, fast(pattern, true, max, 0, ignored), "prefilter, inline: " + label);
                        assertEquals(expected, fast(pattern, true, max, 1, ignored), "prefilter, 1 worker: " + label);
                        assertEquals(expected, fast(pattern, true, max, 4, ignored), "prefilter, 4 workers: " + label);
                        assertEquals(expected, fast(pattern, true, max, 0, ignored, null, null), "Java scans, inline: " + label);
                        assertEquals(expected, fast(pattern, true, max, 2, ignored, null, null), "Java scans, 2 workers: " + label);
                        assertEquals(expected, fast(pattern, false, max, 2, ignored, null, null), "Java, no prefilter: " + label);
                    }
                }
            }
        }
    }

    /** Patterns with and without required literals (those without fall back to the Java walk). */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES) // an ignore file that never ends must not hold the search
    void ripgrepGivesTheSameGrepResult() throws Exception {
        Ripgrep rg = Ripgrep.find(ctx);
        assertNotNull(rg, "ripgrep is installed for the tests (scripts/install-test-tools.sh)");
        for (String regex : PATTERNS) {
            for (boolean ignoreCase : new boolean[]{false, true}) {
                Pattern pattern = Pattern.compile(regex, ignoreCase ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
                for (int max : new int[]{3, 200}) {
                    for (boolean ignored : new boolean[]{false, true}) {
                        String label = regex + (ignoreCase ? " (i)" : "") + " max " + max + (ignored ? " +ignored" : "");
                        assertEquals(plain(pattern, max, ignored), fast(pattern, true, max, 2, ignored, rg), "rg: " + label);
                    }
                }
            }
        }
    }

    @Test
    void globGivesTheSameResultReadingAhead() throws Exception {
        for (String glob : List.of("**/*", "**/*.txt", "*", "*.log", "**/*.txt.d", "many/*", "**/.*", "**/link*",
                "unicode/**", "**/fifo.txt", "**/*empty*", "nested/**/*", "{a,random}/**/*.txt", "**/HEAD", "**/.git")) {
            for (boolean byMtime : new boolean[]{true, false}) {
                for (boolean ignored : new boolean[]{false, true}) {
                    String label = glob + (byMtime ? " mtime" : " name") + (ignored ? " +ignored" : "");
                    ToolResult serial = GlobTool.find(ctx, dir, glob, byMtime, 50, ignored, 0, null);
                    ToolResult parallel = GlobTool.find(ctx, dir, glob, byMtime, 50, ignored, 3, null);
                    ToolResult listed = GlobTool.find(ctx, dir, glob, byMtime, 50, ignored, 3, Libc.libc());
                    assertEquals(serial.forModel() + serial.rawOutput(), parallel.forModel() + parallel.rawOutput(), label);
                    assertEquals(serial.forModel() + serial.rawOutput(), listed.forModel() + listed.rawOutput(), "readdir: " + label);
                }
            }
        }
    }

    /**
     * Reading ahead on helper threads, taking types from readdir or from rg's listing: the same entries in the same
     * order (the tree has names that are not ASCII, which the JDK lists, and links, FIFOs, an empty directory).
     */
    @Test
    void theWalkIsTheSameOnEveryPath() throws Exception {
        Ripgrep rg = Ripgrep.find(ctx);
        assertNotNull(rg);
        for (boolean ignored : new boolean[]{false, true}) {
            for (int max : new int[]{7, 60, GrepTool.MAX_WALK}) {
                List<String> serial = walk(new FileTreeWalker(dir, !ignored, max, ctx.cancellation()));
                assertTrue(serial.size() > 5, serial.toString());
                assertEquals(serial, walk(new FileTreeWalker(dir, !ignored, max, ctx.cancellation()).parallel(3)),
                        "read ahead, max " + max);
                assertEquals(serial, walk(new FileTreeWalker(dir, !ignored, max, ctx.cancellation()).libc(Libc.libc())),
                        "readdir, max " + max);
                assertEquals(serial, walk(new FileTreeWalker(dir, !ignored, max, ctx.cancellation()).libc(Libc.libc())
                        .parallel(3)), "readdir, read ahead, max " + max);
                assertEquals(serial, walk(new FileTreeWalker(dir, !ignored, max, ctx.cancellation()).parallel(2)
                        .known(rg.candidates(dir, ignored, List.of("needle"), false, GrepTool.MAX_FILE_BYTES, ctx))),
                        "rg, max " + max);
            }
        }
    }

    private static List<String> walk(FileTreeWalker walker) throws Exception {
        List<String> seen = new ArrayList<>();
        walker.walk(e -> seen.add(e.relative() + (e.isDirectory() ? "/" : e.isRegularFile() ? "" : " (other)")));
        seen.add("truncated " + walker.truncated());
        return seen;
    }

    /** What ripgrep lists: regular files (never links, never in .git, never over the size bound) and which to read. */
    @Test
    void ripgrepListsTheTreeAndTheFilesToRead() throws Exception {
        Ripgrep rg = Ripgrep.find(ctx);
        assertNotNull(rg);
        Ripgrep.Listing listing = rg.candidates(dir, false, List.of("needle"), false, GrepTool.MAX_FILE_BYTES, ctx);
        assertNotNull(listing);
        assertTrue(listing.files().contains("a/b/ok.txt") && listing.candidates().contains("a/b/ok.txt"), listing.toString());
        assertTrue(listing.files().contains("unicode/mixed.txt"), listing.toString());
        assertTrue(listing.candidates().contains("binary.bin"), "a NUL makes a file a candidate");
        assertFalse(listing.files().contains("too-big.txt"), "over the size bound");
        assertFalse(listing.files().contains("many/link-in.txt"), "links are never listed");
        assertFalse(listing.files().contains(".git/config"), ".git is never listed");
        assertTrue(listing.directories().contains("a/b") && listing.directories().contains("unicode"), listing.toString());
    }

    /** Cancelling a search kills rg at once (here a stand-in rg that never ends). */
    @Test
    void cancellingKillsRipgrep() throws Exception {
        Path fake = home.resolve("rg");
        Files.writeString(fake, "#!/bin/sh\nexec sleep 60\n");
        fake.toFile().setExecutable(true);
        CancellationSource cancel = new CancellationSource();
        SimpleToolContext c = ToolTestSupport.context(dir, cancel);
        Ripgrep rg = Ripgrep.at(fake, java.util.Map.of("PATH", "/usr/bin:/bin"));
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException ignored) {
            }
            cancel.cancel();
        });
        assertThrows(InterruptedException.class, () -> new GrepSearch(c, Pattern.compile("needle"), true, 200, 2, rg)
                .run(dir, null, false));
        // killed, not left to run its minute out
        for (ProcessHandle p : ProcessHandle.current().descendants().toList()) {
            if (!p.info().commandLine().orElse("").contains("sleep 60")) continue;
            p.onExit().get(20, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Test
    void linksOutOfTheWorkspaceAreNeverRead() throws Exception {
        String all = fast(Pattern.compile("secret-con.ent"), true, 200, 2, true);
        assertFalse(all.contains("secret-content"), all);
        assertTrue(all.startsWith("No matches"), all);
        ToolResult direct = ToolTestSupport.run(new GrepTool(), ctx, "{\"pattern\":\"secret-con.ent\",\"path\":\"link-to-secret.txt\"}");
        assertFalse(direct.forModel().contains("secret-content"), direct.forModel());
        ToolResult viaTool = ToolTestSupport.run(new GrepTool(), ctx, "{\"pattern\":\"secret-con.ent\"}");
        assertFalse(viaTool.forModel().contains("secret-content"), viaTool.forModel());
    }

    @Test
    void theRequiredLiteralsAreSoundAndUseful() {
        assertEquals(List.of("needle"), RequiredLiterals.of("needle", false));
        assertEquals(List.of("synchronized"), RequiredLiterals.of("synchronized\\s+void\\s+\\w+Lock", false));
        assertEquals(List.of("TODO", "FIXME"), RequiredLiterals.of("TODO|FIXME", false));
        assertEquals(List.of("colo"), RequiredLiterals.of("colou?r", false));
        assertEquals(List.of("a.b*c"), RequiredLiterals.of("\\Qa.b*c\\E", false));
        assertEquals(List.of("fooqux", "barqux"), RequiredLiterals.of("fooqux|barqux", false));
        assertEquals(List.of("Lock"), RequiredLiterals.of("\\w+Lock", false));
        assertNull(RequiredLiterals.of("(?i)needle", false), "inline flags: no guess");
        assertNull(RequiredLiterals.of("a|", false), "an empty branch matches anything");
        assertNull(RequiredLiterals.of("x*", false));
        assertEquals(List.of("needle"), RequiredLiterals.of("needle", true));
        assertEquals(List.of("elv"), RequiredLiterals.of("kelvin", true), "k (Kelvin sign) and i (dotless i) have non-ASCII twins");
        assertEquals(List.of(List.of("synchronized"), List.of("void"), List.of("Lock")),
                RequiredLiterals.every("synchronized\\s+void\\s+\\w+Lock", false));
        assertEquals(List.of(List.of("foo", "bar", "baz"), List.of("qux")), RequiredLiterals.every("(foo|bar|baz)qux", false));
        assertEquals(List.of(List.of("colo"), List.of("r")), RequiredLiterals.every("colou?r", false));
        assertEquals(List.of(List.of("TODO", "FIXME")), RequiredLiterals.every("TODO|FIXME", false), "two branches: no more");
        assertEquals(List.of(List.of("needle")), RequiredLiterals.every("(?<!x)needle(?=s)", false), "lookarounds never count");
        assertEquals(List.of(List.of("beta")), RequiredLiterals.every("(?:alpha)?beta", false), "optional groups never count");
    }

    @Test
    void aRunawayRegexStopsOnCancelInATreeToo() throws Exception {
        Files.writeString(dir.resolve("evil.txt"), "a".repeat(200) + "\nb\n"); // holds each literal the regex needs
        CancellationSource cancel = new CancellationSource();
        SimpleToolContext c = ToolTestSupport.context(dir, cancel);
        GrepSearch search = new GrepSearch(c, Pattern.compile("(.*a){12}b"), true, 200, 2, null);
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException ignored) {
            }
            cancel.cancel();
        });
        assertThrows(InterruptedException.class, () -> search.run(dir, null, false));
    }

    private String fast(Pattern pattern, boolean prefilter, int max, int threads, boolean includeIgnored) throws Exception {
        return fast(pattern, prefilter, max, threads, includeIgnored, null);
    }

    private String fast(Pattern pattern, boolean prefilter, int max, int threads, boolean includeIgnored, Ripgrep rg)
            throws Exception {
        return fast(pattern, prefilter, max, threads, includeIgnored, rg, Libc.libc());
    }

    private String fast(Pattern pattern, boolean prefilter, int max, int threads, boolean includeIgnored, Ripgrep rg,
                        Libc scan) throws Exception {
        ToolResult r = new GrepSearch(ctx, pattern, prefilter, max, threads, rg, scan).run(dir, null, includeIgnored);
        return r.forModel() + r.rawOutput();
    }

    /** The plain search: one file after another through a BufferedReader, every line given to the regex. */
    private String plain(Pattern pattern, int max, boolean includeIgnored) throws Exception {
        StringBuilder out = new StringBuilder();
        int[] counts = new int[2]; // matches, files
        boolean[] cut = {false};
        FileTreeWalker walker = new FileTreeWalker(dir, !includeIgnored, GrepTool.MAX_WALK, ctx.cancellation());
        walker.walk(entry -> {
            if (!entry.isRegularFile()) return true;
            Path file = entry.path();
            if (Files.size(file) > GrepTool.MAX_FILE_BYTES || TextFiles.looksBinary(file)) return true;
            counts[1]++;
            var decoder = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
            try (BufferedReader r = new BufferedReader(new InputStreamReader(
                    Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS), decoder))) {
                String line;
                int n = 0;
                while ((line = r.readLine()) != null) {
                    n++;
                    Matcher m = pattern.matcher(line);
                    if (!m.find()) continue;
                    if (counts[0] >= max || out.length() >= GrepTool.MAX_OUTPUT_CHARS) {
                        cut[0] = true;
                        return false;
                    }
                    String text = line.length() > GrepTool.MAX_LINE_CHARS ? line.substring(0, GrepTool.MAX_LINE_CHARS) + " …" : line;
                    out.append(ToolPaths.display(ctx, file)).append(':').append(n).append(':').append(text).append('\n');
                    counts[0]++;
                }
            }
            return !(counts[0] >= max || out.length() >= GrepTool.MAX_OUTPUT_CHARS);
        });
        int matches = counts[0], files = counts[1];
        boolean full = matches >= max || out.length() >= GrepTool.MAX_OUTPUT_CHARS;
        if (matches == 0) out.append("No matches for '").append(pattern.pattern()).append("' in ")
                .append(files).append(files == 1 ? " file" : " files").append(".\n");
        if (cut[0] || full) {
            out.append("[Output stopped at ").append(matches).append(" matching lines")
                    .append(cut[0] ? "; there are more" : "; there may be more")
                    .append(". Narrow the pattern, path or glob to see the rest.]\n");
        }
        return out + cn.agentao.agent.util.Json.object().put("matches", matches).put("files", files)
                .put("truncated", cut[0] || full).toString();
    }
}
