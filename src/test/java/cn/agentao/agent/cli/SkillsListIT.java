package cn.agentao.agent.cli;

import cn.agentao.agent.testing.AgentRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** {@code agent skills list} as a user runs it: the real process, SKILL.md files on disk, trust from {@code agent trust}. */
@Timeout(120)
class SkillsListIT {
    @TempDir
    Path dir;

    @Test
    void listsTheUserAndTrustedProjectSkillsAndSaysWhatItSkipped() throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", dir.resolve("home").toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Path user = Files.createDirectories(dir.resolve("config/agent/skills/style"));
        Files.writeString(user.resolve("SKILL.md"), "---\nname: style\ndescription: House style for prose\n---\nShort sentences.\n");
        Path project = Files.createDirectories(ws.resolve(".agent/skills/release-notes"));
        Files.writeString(project.resolve("SKILL.md"), """
                ---
                name: release-notes
                description: >
                  Write release notes
                  from the git log
                allowed-tools: Bash, Read
                ---
                Body.
                """);
        Files.createDirectories(ws.resolve(".claude/skills/broken"));
        Files.writeString(ws.resolve(".claude/skills/broken/SKILL.md"), "---\nname: broken\n");

        AgentRun.Result untrusted = AgentRun.run(ws, env, null, "skills", "list");
        assertEquals(0, untrusted.exit(), untrusted.stderr());
        assertTrue(untrusted.stdout().contains("style  (user, ") && untrusted.stdout().contains("House style for prose"), untrusted.stdout());
        assertFalse(untrusted.stdout().contains("release-notes"), "an untrusted project's skills are not listed");
        assertTrue(untrusted.stderr().contains(".agent/skills") && untrusted.stderr().contains("not trusted"), untrusted.stderr());

        assertEquals(0, AgentRun.run(ws, env, "", "trust").exit());
        AgentRun.Result trusted = AgentRun.run(ws, env, null, "skills", "list");
        assertEquals(0, trusted.exit(), trusted.stderr());
        assertTrue(trusted.stdout().contains("release-notes  (project, ") && trusted.stdout().contains("Write release notes from the git log"), trusted.stdout());
        assertTrue(trusted.stdout().contains("allowed-tools: Bash, Read"), trusted.stdout());
        assertTrue(trusted.stdout().indexOf("release-notes") < trusted.stdout().indexOf("style"), "project skills first");
        assertTrue(trusted.stderr().contains(".claude/skills/broken/SKILL.md was not loaded") && trusted.stderr().contains("no closing '---'"),
                trusted.stderr());
    }
}
