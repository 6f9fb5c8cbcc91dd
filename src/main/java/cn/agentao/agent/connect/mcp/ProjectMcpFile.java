package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.core.tool.McpServerConfig;
import cn.agentao.agent.core.tool.McpServerConfig.NameValue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A project's {@code .agent/mcp.json} as read once: its text and the digest the user's trust is tied to, and the
 * project's files its stdio servers start from ({@code startFiles}: path relative to the project → digest), which
 * the trust covers too, since any command may rewrite them. What is shown when asking ({@link #unexpanded}) and what
 * starts after the answer ({@link #servers}) come from the same bytes, so a file swapped while the question is open
 * is never what runs.
 *
 * <p>A start file is a word of a server's {@code command} and {@code args} (also the part after {@code =} of an
 * {@code --option=value}, and the module after {@code -m}, as {@code NAME.py} or the package directory {@code NAME/})
 * that names an existing file inside the project; a package directory counts with every file below it (up to
 * {@value #MAX_TREE_FILES}; {@code node_modules}, {@code .git} and {@code __pycache__} are left out), another
 * directory is taken for data (a filesystem server's root). A word with {@code ${…}} is not followed, nor is what
 * those files load in turn.
 */
public record ProjectMcpFile(Path file, String text, String digest, Map<String, String> startFiles)
        implements cn.agentao.agent.trust.TrustedProjects.Reviewed {
    static final int MAX_TREE_FILES = 2000;
    private static final java.util.Set<String> TREE_SKIPPED = java.util.Set.of("node_modules", ".git", "__pycache__");

    public ProjectMcpFile {
        startFiles = Map.copyOf(startFiles);
    }

    /** The project's file, or empty when it has none (or it cannot be read). */
    public static Optional<ProjectMcpFile> read(Path projectDir) {
        Path file = McpConfigFiles.projectFile(projectDir);
        if (!Files.isRegularFile(file)) return Optional.empty();
        try {
            byte[] bytes = Files.readAllBytes(file);
            String text = new String(bytes, StandardCharsets.UTF_8);
            List<McpServerDefinition> servers = McpConfigFiles.parse(file, text, McpServerDefinition.Origin.PROJECT_CONFIG, null, new ArrayList<>());
            return Optional.of(new ProjectMcpFile(file, text, sha256(bytes), startFiles(projectDir, servers)));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The files inside {@code projectDir} that the stdio servers name, with their digests (see the class comment). */
    static Map<String, String> startFiles(Path projectDir, List<McpServerDefinition> servers) {
        Path project = real(projectDir.toAbsolutePath().normalize());
        Map<String, String> out = new java.util.TreeMap<>();
        for (McpServerDefinition d : servers) {
            McpServerConfig c = d.config();
            if (!c.isStdio() || c.command() == null) continue;
            List<String> words = prepend(c.command(), c.args());
            for (int i = 0; i < words.size(); i++) {
                String w = words.get(i);
                if (w == null || w.isEmpty() || w.contains("${")) continue;
                fingerprint(project, w, false, out);
                if (w.startsWith("-") && w.indexOf('=') > 0) fingerprint(project, w.substring(w.indexOf('=') + 1), false, out);
                if (i > 0 && "-m".equals(words.get(i - 1))) {
                    String module = w.replace('.', '/');
                    fingerprint(project, module + ".py", false, out);
                    fingerprint(project, module, true, out);
                }
            }
        }
        return out;
    }

    /** Adds {@code name}'s digest when it is a file inside the project (or a directory, when {@code tree}). */
    private static void fingerprint(Path project, String name, boolean tree, Map<String, String> out) {
        Path p;
        try {
            p = project.resolve(name).normalize();
        } catch (java.nio.file.InvalidPathException e) {
            return;
        }
        if (!p.startsWith(project) || p.equals(project) || !Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) return;
        String key = project.relativize(p).toString();
        Path r = real(p);
        if (!r.startsWith(project)) { // a link out of the project: which file it names is what was trusted
            out.put(key, "outside:" + r);
            return;
        }
        try {
            if (Files.isRegularFile(r)) {
                out.put(key, sha256(Files.readAllBytes(r)));
            } else if (tree && Files.isDirectory(r)) {
                out.put(key, treeDigest(r));
            }
        } catch (IOException e) {
            out.put(key, "unreadable");
        }
    }

    /** One digest over the relative paths and contents of the files below {@code dir} (links by their text). */
    private static String treeDigest(Path dir) throws IOException {
        Map<String, String> files = new java.util.TreeMap<>();
        Files.walkFileTree(dir, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult preVisitDirectory(Path d, java.nio.file.attribute.BasicFileAttributes a) {
                return !d.equals(dir) && TREE_SKIPPED.contains(d.getFileName().toString())
                        ? java.nio.file.FileVisitResult.SKIP_SUBTREE : java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFile(Path f, java.nio.file.attribute.BasicFileAttributes a) throws IOException {
                // past the bound, whatever was seen (which may differ each time: asked again, never wrongly trusted)
                if (files.size() >= MAX_TREE_FILES) return java.nio.file.FileVisitResult.TERMINATE;
                files.put(dir.relativize(f).toString(), a.isSymbolicLink() ? "link:" + Files.readSymbolicLink(f)
                        : a.isRegularFile() ? sha256(Files.readAllBytes(f)) : "other");
                return java.nio.file.FileVisitResult.CONTINUE;
            }
        });
        StringBuilder all = new StringBuilder();
        files.forEach((name, digest) -> all.append(name).append(' ').append(digest).append('\n'));
        return sha256(all.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p;
        }
    }

    /** The servers with {@code ${…}} expanded from {@code environment}: only for a file the user trusts. */
    public List<McpServerDefinition> servers(Map<String, String> environment, List<String> warnings) {
        return McpConfigFiles.parse(file, text, McpServerDefinition.Origin.PROJECT_CONFIG, environment, warnings);
    }

    /** The servers exactly as written, {@code ${…}} untouched: what the user is shown; problems go to {@code warnings}. */
    public List<McpServerDefinition> unexpanded(List<String> warnings) {
        return McpConfigFiles.parse(file, text, McpServerDefinition.Origin.PROJECT_CONFIG, null, warnings);
    }

    /** One line per server: {@code name → command args} or {@code name → url}, as written. */
    public List<String> describe() {
        List<String> out = new ArrayList<>();
        for (McpServerDefinition d : unexpanded(new ArrayList<>())) {
            var c = d.config();
            String what = "stdio".equals(c.type())
                    ? String.join(" ", prepend(c.command(), c.args())) + pairs("env", c.env(), "=")
                    : c.type() + " " + c.url() + pairs("headers", c.headers(), ": ");
            out.add(d.name() + " → " + what);
        }
        return out;
    }

    /** As written in the project's file (its own text, references unexpanded), so the user sees where values go. */
    private static String pairs(String label, List<NameValue> values, String separator) {
        if (values == null || values.isEmpty()) return "";
        return " (" + label + " " + String.join(", ", values.stream().map(v -> v.name() + separator + v.value()).toList()) + ")";
    }

    private static List<String> prepend(String first, List<String> rest) {
        List<String> all = new ArrayList<>();
        all.add(first);
        if (rest != null) all.addAll(rest);
        return all;
    }

    static String sha256(byte[] bytes) {
        try {
            return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
