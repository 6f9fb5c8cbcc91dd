package cn.agentao.agent.connect.mcp;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class McpNamesTest {
    private static final Pattern TOOL = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final Pattern COMMAND = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    @Test
    void toolNamesAreNamespacedAndSanitised() {
        Set<String> taken = new HashSet<>();
        String key = McpNames.serverKey("my server.v2", new HashSet<>());
        assertEquals("my_server_v2", key);
        assertEquals("mcp__my_server_v2__read_file", McpNames.toolName(key, "read_file", taken));
        assertEquals("mcp__my_server_v2__get_tiny-image", McpNames.toolName(key, "get.tiny-image", taken));
        assertEquals("mcp__my_server_v2__h_llo", McpNames.toolName(key, "hällo", taken));
    }

    @Test
    void longNamesAreCutToSixtyFourWithAStableHash() {
        String key = McpNames.serverKey("a-server-name-that-is-far-too-long-to-keep", new HashSet<>());
        assertTrue(key.length() <= McpNames.MAX_SERVER_KEY, key);
        String tool = "x".repeat(100);
        String first = McpNames.toolName(key, tool, new HashSet<>());
        String again = McpNames.toolName(key, tool, new HashSet<>());
        assertEquals(first, again);
        assertTrue(TOOL.matcher(first).matches(), first);
        assertEquals(64, first.length());
        String other = McpNames.toolName(key, "x".repeat(99) + "y", new HashSet<>());
        assertNotEquals(first, other);
    }

    @Test
    void namesThatClashAfterSanitisingStayDistinct() {
        Set<String> keys = new HashSet<>();
        String a = McpNames.serverKey("a.b", keys);
        String b = McpNames.serverKey("a_b", keys);
        assertNotEquals(a, b);
        Set<String> taken = new HashSet<>();
        String t1 = McpNames.toolName(a, "do it", taken);
        String t2 = McpNames.toolName(a, "do_it", taken);
        assertNotEquals(t1, t2);
        assertTrue(TOOL.matcher(t2).matches(), t2);
    }

    @Test
    void distinctKeysDoNotDependOnWhoCameFirst() {
        Set<String> oneOrder = new HashSet<>();
        String dotted = McpNames.distinctKey("a.b", oneOrder);
        String plain = McpNames.distinctKey("a_b", oneOrder);
        Set<String> otherOrder = new HashSet<>();
        assertEquals(plain, McpNames.distinctKey("a_b", otherOrder));
        assertEquals(dotted, McpNames.distinctKey("a.b", otherOrder));
        assertEquals("a_b", plain, "a clean name keeps itself");
        assertNotEquals(plain, dotted);
        assertEquals(dotted, McpNames.distinctKey("a.b", new HashSet<>()), "alone, too, a.b is not a_b");
        assertTrue(McpNames.distinctKey("x".repeat(40), new HashSet<>()).length() <= McpNames.MAX_SERVER_KEY);
    }

    @Test
    void promptCommandsAreValidCommandNames() {
        Set<String> taken = new HashSet<>();
        String name = McpNames.commandName("everything", "args-prompt", taken);
        assertEquals("mcp.everything.args-prompt", name);
        String odd = McpNames.commandName("everything", "what/ever prompt." + "z".repeat(80), taken);
        assertTrue(COMMAND.matcher(odd).matches(), odd);
        assertTrue(odd.startsWith("mcp.everything.what_ever_prompt_"), odd);
    }
}
