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

/** {@code agent agents list} as a user runs it: the real process, definitions on disk, trust from {@code agent trust}. */
@Timeout(120)
class AgentsListIT {
    @TempDir
    Path dir;

    @Test
    void listsTheBuiltInUserAndTrustedProjectAgentsAndSaysWhatItSkipped() throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", dir.resolve("home").toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Files.createDirectories(dir.resolve("config/agent/agents"));
        Files.writeString(dir.resolve("config/agent/agents/reviewer.md"), "---\nname: reviewer\ndescription: Reviews a diff\ntools:\n  - Read\n  - Grep\n---\nBe strict.\n");
        Files.createDirectories(ws.resolve(".agentao/agents"));
        Files.writeString(ws.resolve(".agentao/agents/doc-writer.md"), "---\nname: doc-writer\ndescription: Writes docs\ntools: Read, Write\nmax_turns: 7\n---\n");
        Files.writeString(ws.resolve(".agentao/agents/broken.md"), "---\nname: broken\ndescription: x\nmax_turns: many\n---\n");

        AgentRun.Result untrusted = AgentRun.run(ws, env, null, "agents", "list");
        assertEquals(0, untrusted.exit(), untrusted.stderr());
        assertTrue(untrusted.stdout().contains("reviewer  (") && untrusted.stdout().contains("tools: read_file, grep; max_turns: 25"), untrusted.stdout());
        assertTrue(untrusted.stdout().contains("codebase-investigator  (built-in, read-only)"), untrusted.stdout());
        assertFalse(untrusted.stdout().contains("doc-writer"), "an untrusted project's agents are not listed");
        assertTrue(untrusted.stderr().contains(".agentao/agents") && untrusted.stderr().contains("not trusted"), untrusted.stderr());

        assertEquals(0, AgentRun.run(ws, env, "", "trust").exit());
        AgentRun.Result trusted = AgentRun.run(ws, env, null, "agents", "list");
        assertEquals(0, trusted.exit(), trusted.stderr());
        assertTrue(trusted.stdout().contains("doc-writer  (.agentao/agents/doc-writer.md)")
                && trusted.stdout().contains("tools: read_file, write_file; max_turns: 7"), trusted.stdout());
        assertTrue(trusted.stderr().contains(".agentao/agents/broken.md was not loaded") && trusted.stderr().contains("max_turns 'many'"),
                trusted.stderr());
    }
}
