package cn.agentao.agent.tools.search;

import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.local.LocalCommandRunner;
import cn.agentao.agent.childenv.ChildEnvironment;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * ripgrep ({@code rg}), when it is installed, as grep's fast first pass over a tree. It only answers "which regular
 * files are there, and which of them hold one of these literals or a NUL byte": the walk, the ignore rules, the
 * order, the bounds and every line of output stay {@link FileTreeWalker}'s and {@link FileGrep}'s, which take
 * what rg listed as known instead of asking the file system about each entry (Java cannot see a directory entry's
 * type, so that costs an {@code lstat}) and read only the files rg marked. Whatever rg did not list is looked at
 * as before, so the result is exactly the Java path's, whatever rg's own ignore rules say. rg never sees the
 * regular expression, only literals every match must contain ({@link RequiredLiterals}), so Java's and Rust's
 * regex dialects never meet; a pattern without such literals is searched by the Java path alone.
 *
 * <p>Looked for once per executable, on first use (never at start-up): {@code rg} on the children's {@code PATH}
 * (which has no entry inside the workspace) or {@code /usr/bin/rg}, version 12 or later. Its environment is the
 * session's child environment (no credentials). Used only with {@code AGENT_SEARCH=rg} (or the system property
 * {@code agent.search=rg}): see {@link #wanted()}.
 */
final class Ripgrep {
    private static final long WAIT_SLICE_MS = 20;
    /** The largest root .gitignore handed to rg (a bigger one is left to the walk). */
    private static final long MAX_IGNORE_FILE = 1 << 20;
    private static final Map<Path, Boolean> USABLE = new ConcurrentHashMap<>();
    /** The charset of file names, as {@link Path} decodes them. */
    private static final Charset NAMES = Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"), Charset.defaultCharset());

    private final Path executable;
    private final Map<String, String> environment;

    private Ripgrep(Path executable, Map<String, String> environment) {
        this.executable = executable;
        this.environment = environment;
    }

    /** rg at {@code executable}, taken as it is (for tests). */
    static Ripgrep at(Path executable, Map<String, String> environment) {
        return new Ripgrep(executable, Map.copyOf(environment));
    }

    /**
     * Whether {@code grep} takes rg's help: only when asked ({@code AGENT_SEARCH=rg} or {@code -Dagent.search=rg}).
     * On a quiet 2-core machine the Java path alone was faster (rg's scan plus reading its candidates is more work
     * than the Java path's parallel scan: docs/performance.md, Search); rg's help may pay on machines with many cores.
     */
    static boolean wanted() {
        return "rg".equals(System.getProperty("agent.search", System.getenv("AGENT_SEARCH")));
    }

    /** rg for {@code grep}, when wanted and installed; else null (the Java path alone). */
    static Ripgrep forGrep(ToolContext ctx) {
        return wanted() ? find(ctx) : null;
    }

    /** rg for this session's tools, or null when it is not installed. */
    static Ripgrep find(ToolContext ctx) {
        ChildEnvironment env = ctx.commands() instanceof LocalCommandRunner local ? local.environment()
                : ChildEnvironment.ofAgent(ctx.roots());
        Map<String, String> vars = env.variables();
        List<Path> candidates = new ArrayList<>();
        String path = vars.get("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) if (!dir.isEmpty()) candidates.add(Path.of(dir, "rg"));
        }
        candidates.add(Path.of("/usr/bin/rg"));
        for (Path rg : candidates) {
            if (!Files.isExecutable(rg)) continue;
            if (USABLE.computeIfAbsent(rg, p -> usable(p, vars))) return new Ripgrep(rg, vars);
        }
        return null;
    }

    /** Version 12 or later (--include-zero, --no-ignore-dot, --no-require-git). */
    private static boolean usable(Path rg, Map<String, String> vars) {
        try {
            ProcessBuilder pb = new ProcessBuilder(rg.toString(), "--version").redirectErrorStream(true);
            pb.environment().clear();
            pb.environment().putAll(vars);
            Process p = pb.start();
            String out = new String(p.getInputStream().readNBytes(4096), NAMES);
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            if (p.exitValue() != 0 || !out.startsWith("ripgrep ")) return false;
            String version = out.substring("ripgrep ".length()).split("[.\\s]")[0];
            return Integer.parseInt(version) >= 12;
        } catch (IOException | NumberFormatException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * The regular files below {@code root} of at most {@code maxBytes}, each marked when it holds one of
     * {@code literals} (ignoring case as {@link LiteralFinder} does, or more) or a NUL byte anywhere: the files a
     * search with these required literals has to read; the others are text without a match.
     *
     * @return null when rg failed or cannot take these literals
     */
    Listing candidates(Path root, boolean includeIgnored, List<String> literals, boolean ignoreCase, long maxBytes,
                       ToolContext ctx) throws InterruptedException {
        StringBuilder regex = new StringBuilder(ignoreCase ? "(?i)" : "");
        for (String literal : literals) {
            if (literal.isEmpty() || literal.indexOf('\n') >= 0) return null;
            literal.codePoints().forEach(c -> {
                if (c < 128 && Character.isLetterOrDigit(c)) regex.appendCodePoint(c);
                else regex.append("\\x{").append(Integer.toHexString(c)).append('}');
            });
            regex.append('|');
        }
        regex.append("\\x{0}");
        // rg reads no ignore file of its own (a .gitignore can be a link to /dev/zero or a FIFO, which would hold
        // it forever): only the root's own .gitignore when it is a regular file, to pass over what it ignores (the
        // walk applies all of our rules anyway); hidden files; never through a link; never into .git
        List<String> args = new ArrayList<>(List.of("--no-config", "--no-messages", "--null", "--hidden",
                "--no-ignore", "--glob", "!.git/"));
        Path rootIgnore = root.resolve(".gitignore");
        if (!includeIgnored && Files.isRegularFile(rootIgnore, LinkOption.NOFOLLOW_LINKS)
                && size(rootIgnore) <= MAX_IGNORE_FILE) {
            args.addAll(List.of("--ignore-file", rootIgnore.toString()));
        }
        // every byte as it is (no binary quitting, no BOM decoding); one matching line is enough
        args.addAll(List.of("--text", "--encoding", "none", "--count", "--max-count", "1", "--include-zero",
                "--max-filesize", Long.toString(maxBytes), "--regexp", regex.toString()));
        return run(root, args, ctx);
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return Long.MAX_VALUE;
        }
    }

    private Listing run(Path root, List<String> args, ToolContext ctx) throws InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(executable.toString());
        command.addAll(args);
        command.addAll(List.of("--", "."));
        ProcessBuilder pb = new ProcessBuilder(command).directory(root.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().clear();
        pb.environment().putAll(environment);
        Process process;
        try {
            process = pb.start();
        } catch (IOException e) {
            return null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 16);
        Thread reader = Thread.ofVirtual().name("rg-" + process.pid()).start(() -> {
            try (InputStream in = process.getInputStream()) {
                in.transferTo(out);
            } catch (IOException ignored) {
                // the process was killed or failed: its exit status says so
            }
        });
        try {
            while (!process.waitFor(WAIT_SLICE_MS, TimeUnit.MILLISECONDS)) {
                if (ctx.cancellation().isCancelled()) throw new InterruptedException("search cancelled");
            }
            reader.join();
        } finally {
            if (process.isAlive()) process.destroyForcibly();
        }
        // 0: found, 1: nothing found; 2: an error (a bad argument, or only an unreadable file: let Java decide)
        if (process.exitValue() > 1) return null;
        return Listing.parse(out.toByteArray());
    }

    /**
     * What rg listed, by path relative to the root ('/'-separated, as {@link FileTreeWalker.Entry#relative()}):
     * regular files, the directories holding them, and the files to read.
     */
    static final class Listing {
        private final Set<String> files;
        private final Set<String> directories;
        private final Set<String> candidates;

        private Listing(Set<String> files, Set<String> directories, Set<String> candidates) {
            this.files = files;
            this.directories = directories;
            this.candidates = candidates;
        }

        Set<String> files() { return files; }

        Set<String> directories() { return directories; }

        Set<String> candidates() { return candidates; }

        @Override
        public String toString() {
            return "files " + files + ", directories " + directories + ", candidates " + candidates;
        }

        /** rg's {@code --count --null} output: each file's path, a NUL, its count and a newline. */
        static Listing parse(byte[] out) {
            Set<String> files = new HashSet<>();
            Set<String> dirs = new HashSet<>();
            Set<String> candidates = new HashSet<>();
            Map<String, Boolean> seenDirs = new HashMap<>();
            int i = 0;
            while (i < out.length) {
                int nul = indexOf(out, i, (byte) 0);
                if (nul < 0) break;
                String rel = new String(out, i, nul - i, NAMES);
                if (rel.startsWith("./")) rel = rel.substring(2);
                i = nul + 1;
                // a name that does not decode is left to the walk (two such names could decode alike)
                boolean clear = rel.indexOf('\uFFFD') < 0;
                int nl = indexOf(out, i, (byte) '\n');
                if (nl < 0) nl = out.length;
                if (clear && !(nl - i == 1 && out[i] == '0')) candidates.add(rel);
                i = nl + 1;
                if (!clear) continue;
                files.add(rel);
                for (int slash = rel.lastIndexOf('/'); slash > 0; slash = rel.lastIndexOf('/', slash - 1)) {
                    if (seenDirs.putIfAbsent(rel.substring(0, slash), Boolean.TRUE) != null) break;
                }
            }
            dirs.addAll(seenDirs.keySet());
            return new Listing(files, dirs, candidates);
        }

        private static int indexOf(byte[] b, int from, byte value) {
            return ByteScan.indexOf(b, from, b.length, value);
        }
    }
}
