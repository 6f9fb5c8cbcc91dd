package cn.agentao.agent.model;

import cn.agentao.agent.store.DurableFiles;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Edits the user's {@code .env} ({@code agent login} / {@code logout}): sets or removes variables and keeps every
 * other line as it was. The file is replaced atomically and is readable by its owner only (0600), as is its
 * directory when created here. Values are written single-quoted (literal for {@link DotEnv}: no {@code ${…}}
 * expansion of a key that happens to contain one).
 */
public final class UserDotEnvFile {
    private static final Pattern ASSIGNMENT = Pattern.compile("^\\s*(?:export\\s+)?([A-Za-z0-9_.-]+)\\s*=");

    private final Path file;

    public UserDotEnvFile(Path file) {
        this.file = file;
    }

    /** The user's {@code .env} in their configuration directory {@code configDir} ({@code $XDG_CONFIG_HOME/agent} or {@code ~/.config/agent}). */
    public static UserDotEnvFile in(Path configDir) {
        return new UserDotEnvFile(configDir.resolve(".env"));
    }

    public Path file() {
        return file;
    }

    /** When and how big the file was last written (null when absent): a change means a login or logout happened. */
    public Object stamp() {
        try {
            var attributes = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class);
            return List.of(attributes.lastModifiedTime(), attributes.size(), attributes.fileKey() == null ? "" : attributes.fileKey());
        } catch (IOException e) {
            return null;
        }
    }

    /** The variables the file sets now (parsed as the agent reads them). */
    public Map<String, String> values() {
        return DotEnv.read(file, name -> null);
    }

    /** Sets {@code values} (replacing earlier lines of the same names) and removes {@code remove}. */
    public void update(Map<String, String> values, Set<String> remove) throws IOException {
        List<String> lines = Files.isRegularFile(file)
                ? new ArrayList<>(Files.readAllLines(file, StandardCharsets.UTF_8)) : new ArrayList<>();
        Map<String, String> pending = new LinkedHashMap<>(values);
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            Matcher m = ASSIGNMENT.matcher(line);
            if (!m.find()) {
                out.add(line);
                continue;
            }
            String name = m.group(1);
            if (pending.containsKey(name)) {
                out.add(assignment(name, pending.remove(name)));
            } else if (!values.containsKey(name) && !remove.contains(name)) {
                out.add(line);
            }
        }
        pending.forEach((name, value) -> out.add(assignment(name, value)));
        Path dir = file.getParent();
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir);
            try {
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            } catch (UnsupportedOperationException e) {
                // not a POSIX file system (Windows): the user's profile directory is private already
            }
        }
        StringBuilder text = new StringBuilder();
        for (String line : out) text.append(line).append('\n');
        DurableFiles.writeAtomically(file, text.toString().getBytes(StandardCharsets.UTF_8), true);
    }

    private static String assignment(String name, String value) {
        return name + "='" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
