package cn.agentao.agent.skills;

import cn.agentao.agent.permission.Workspace;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The skills a session may use, found in folders with a {@code SKILL.md}: the project's {@code .agent/skills/},
 * {@code .agentao/skills/} and {@code .claude/skills/} (only when the user trusts the project), then the user's
 * {@code skills/} in the config directory. The first skill of a name wins, in that order. Bounded: at most
 * {@value #MAX_SKILLS} skills, a {@code SKILL.md} of at most {@value #MAX_FILE_BYTES} bytes; a skill that cannot be
 * used is skipped with a notice that says why. {@code docs/skills.md} describes the format.
 */
public final class SkillCatalog {
    public static final String FILE = "SKILL.md";
    public static final List<String> PROJECT_DIRS = List.of(".agent/skills", ".agentao/skills", ".claude/skills");
    static final int MAX_SKILLS = 100;
    static final int MAX_FILE_BYTES = 64 * 1024;
    static final int MAX_DESCRIPTION = 1024;
    static final int MAX_LISTED_FILES = 200;
    static final int MAX_READ_BYTES = 256 * 1024;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    public static final SkillCatalog EMPTY = new SkillCatalog(List.of(), List.of());

    private final Map<String, Skill> skills;
    private final List<String> notices;

    private SkillCatalog(List<Skill> skills, List<String> notices) {
        Map<String, Skill> m = new LinkedHashMap<>();
        for (Skill s : skills) m.putIfAbsent(s.name(), s);
        this.skills = m;
        this.notices = List.copyOf(notices);
    }

    /** The skills, in the order they were found. */
    public List<Skill> all() { return List.copyOf(skills.values()); }

    public boolean isEmpty() { return skills.isEmpty(); }

    public Optional<Skill> find(String name) { return Optional.ofNullable(skills.get(name)); }

    /** One sentence per skill that was skipped (a broken SKILL.md, an untrusted project, a link outside, too many). */
    public List<String> notices() { return notices; }

    /**
     * Finds the skills of {@code cwd} (the project's only when {@code projectTrusted}) and of the user's config
     * directory {@code configDir} (null: none).
     */
    public static SkillCatalog discover(Path cwd, Path configDir, boolean projectTrusted) {
        List<Skill> found = new ArrayList<>();
        List<String> notices = new ArrayList<>();
        DefinitionFolders.walk(cwd, PROJECT_DIRS, projectTrusted, configDir == null ? null : configDir.resolve("skills"), "Skills",
                root -> !skillDirs(root, notices).isEmpty(),
                (root, origin, project) -> load(root, origin, project, cwd, found, notices), notices);
        return new SkillCatalog(found, notices);
    }

    private static List<Path> skillDirs(Path root, List<String> notices) {
        try (Stream<Path> dirs = Files.list(root)) {
            return dirs.filter(d -> Files.isRegularFile(d.resolve(FILE))).sorted().toList();
        } catch (IOException e) {
            notices.add("Skills in " + root + " could not be listed: " + e.getMessage());
            return List.of();
        }
    }

    private static void load(Path root, String origin, boolean project, Path cwd, List<Skill> found, List<String> notices) {
        if (!Files.isDirectory(root)) return;
        for (Path dir : skillDirs(root, notices)) {
            String where = origin + "/" + dir.getFileName() + "/" + FILE;
            if (found.size() >= MAX_SKILLS) {
                notices.add("Skill " + where + " and any after it were not loaded: at most " + MAX_SKILLS + " skills are loaded.");
                return;
            }
            if (project && !Workspace.of(cwd).contains(dir.resolve(FILE))) {
                notices.add("Skill " + where + " was not loaded: it is a link to a file outside the workspace.");
                continue;
            }
            try {
                Skill s = parse(dir, project, origin);
                if (found.stream().noneMatch(x -> x.name().equals(s.name()))) found.add(s);
            } catch (FrontMatter.Invalid e) {
                notices.add("Skill " + where + " was not loaded: " + e.getMessage() + ".");
            }
        }
    }

    /** Reads a skill's front matter; throws with a sentence for the user when it cannot be used. */
    static Skill parse(Path dir, boolean project, String origin) throws FrontMatter.Invalid {
        FrontMatter.Parsed p = FrontMatter.parse(read(dir.resolve(FILE)));
        String name = text(p.values().get("name"));
        if (name == null || name.isBlank()) name = dir.getFileName().toString();
        if (!NAME.matcher(name).matches()) {
            throw new FrontMatter.Invalid("its name '" + name + "' is not 1-64 letters, digits, '-', '_' or '.'");
        }
        String description = text(p.values().get("description"));
        if (description == null || description.isBlank()) throw new FrontMatter.Invalid("its front matter has no description");
        if (description.length() > MAX_DESCRIPTION) description = description.substring(0, MAX_DESCRIPTION) + "…";
        Object tools = p.values().get("allowed-tools");
        List<String> allowed = new ArrayList<>();
        if (tools instanceof List<?> l) {
            for (Object o : l) allowed.add(o.toString());
        } else if (tools instanceof String s) {
            for (String x : s.split(s.contains(",") ? "," : "\\s+")) if (!x.isBlank()) allowed.add(x.strip());
        }
        return new Skill(name, description.strip(), allowed, dir, project, origin);
    }

    private static String text(Object v) {
        return v instanceof String s ? s : null;
    }

    private static String read(Path file) throws FrontMatter.Invalid {
        return FrontMatter.read(file, MAX_FILE_BYTES, "a SKILL.md");
    }

    /**
     * What the model reads when it activates {@code skill}: the body of its {@code SKILL.md} (read again now) and the
     * files beside it, with how to read them.
     */
    public static String activation(Skill skill) throws IOException {
        String body;
        try {
            body = FrontMatter.parse(read(skill.file())).body();
        } catch (FrontMatter.Invalid e) {
            throw new IOException("skill '" + skill.name() + "' cannot be loaded: " + e.getMessage());
        }
        StringBuilder sb = new StringBuilder("<skill name=\"").append(skill.name()).append("\" dir=\"").append(skill.dir()).append("\">\n")
                .append(body).append("\n</skill>\n");
        if (!skill.allowedTools().isEmpty()) {
            sb.append("\nThe skill is written for these tools: ").append(String.join(", ", skill.allowedTools()))
                    .append(" (each call is still subject to the session's permissions).\n");
        }
        List<String> files = files(skill);
        if (!files.isEmpty()) {
            sb.append("\nFiles in the skill's folder (paths relative to it); ")
                    .append(skill.project() ? "read them with `read_file` (" + skill.dir() + "/PATH) or "
                            : "")
                    .append("with `activate_skill` and `file`: PATH:\n");
            for (String f : files) sb.append("- ").append(f).append('\n');
        }
        return sb.toString();
    }

    /** The regular files in the skill's folder (not SKILL.md), relative to it, sorted; at most MAX_LISTED_FILES. */
    static List<String> files(Skill skill) throws IOException {
        Path real = skill.dir().toRealPath();
        try (Stream<Path> walk = Files.walk(real, 4)) {
            return walk.filter(Files::isRegularFile).map(p -> real.relativize(p).toString())
                    .filter(p -> !p.equals(FILE)).sorted().limit(MAX_LISTED_FILES).toList();
        }
    }

    /**
     * A file of the skill's listing, by its path relative to the skill's folder: only a regular file that resolves
     * (links followed) inside the folder, and is listed, is read.
     */
    public static String readFile(Skill skill, String relative) throws IOException {
        Path real = skill.dir().toRealPath();
        Path f = real.resolve(relative).normalize();
        if (!f.startsWith(real) || !Files.isRegularFile(f) || !f.toRealPath().startsWith(real) || !files(skill).contains(real.relativize(f).toString())) {
            throw new IOException("'" + relative + "' is not a file of skill '" + skill.name() + "'; its files are listed when it is activated");
        }
        if (Files.size(f) > MAX_READ_BYTES) throw new IOException("'" + relative + "' is larger than " + MAX_READ_BYTES + " bytes");
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(f))).toString();
        } catch (CharacterCodingException e) {
            throw new IOException("'" + relative + "' is not UTF-8 text");
        }
    }
}
