package cn.agentao.agent.connect.mcp;

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
 * A project's {@code .agent/mcp.json} as read once: its text and the digest the user's trust is tied to. What is
 * shown when asking ({@link #unexpanded}) and what starts after the answer ({@link #servers}) come from the same
 * bytes, so a file swapped while the question is open is never what runs.
 */
public record ProjectMcpFile(Path file, String text, String digest) {

    /** The project's file, or empty when it has none (or it cannot be read). */
    public static Optional<ProjectMcpFile> read(Path projectDir) {
        Path file = McpConfigFiles.projectFile(projectDir);
        if (!Files.isRegularFile(file)) return Optional.empty();
        try {
            byte[] bytes = Files.readAllBytes(file);
            return Optional.of(new ProjectMcpFile(file, new String(bytes, StandardCharsets.UTF_8), sha256(bytes)));
        } catch (IOException e) {
            return Optional.empty();
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
