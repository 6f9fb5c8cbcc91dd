package cn.agentao.agent.skills;

import java.nio.file.Path;
import java.util.List;

/**
 * One skill: a folder with a {@code SKILL.md} whose front matter gives its {@code name} and {@code description}
 * (and optionally {@code allowed-tools}); the body is read only when the skill is activated.
 *
 * @param dir     the skill's folder (as found, links not resolved)
 * @param project whether it comes from the project (inside the workspace) rather than the user's config directory
 * @param origin  where it was found, for people: {@code .agent/skills}, {@code ~/.config/agent/skills}, …
 */
public record Skill(String name, String description, List<String> allowedTools, Path dir, boolean project, String origin) {
    public Skill {
        allowedTools = List.copyOf(allowedTools);
    }

    public Path file() { return dir.resolve(SkillCatalog.FILE); }
}
