package cn.agentao.agent.connect.mcp;

import io.modelcontextprotocol.spec.McpSchema.PromptArgument;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class McpPromptArgumentsTest {
    private static final List<PromptArgument> CITY_STATE = List.of(
            new PromptArgument("city", null, "Name of the city", true),
            new PromptArgument("state", null, "Name of the state", false));

    @Test
    void freeTextGoesToTheFirstArgument() throws McpException {
        assertEquals(Map.of("city", "San Francisco"), McpPromptArguments.parse("p", CITY_STATE, " San Francisco ").arguments());
    }

    @Test
    void keyValuePairsFillNamedArguments() throws McpException {
        assertEquals(Map.of("city", "San Francisco", "state", "CA"),
                McpPromptArguments.parse("p", CITY_STATE, "city=\"San Francisco\" state=CA").arguments());
    }

    @Test
    void pairsWithUnknownKeysAreFreeText() throws McpException {
        assertEquals(Map.of("city", "a=b"), McpPromptArguments.parse("p", CITY_STATE, "a=b").arguments());
    }

    @Test
    void aMissingRequiredArgumentShowsTheUsage() {
        McpException e = assertThrows(McpException.class, () -> McpPromptArguments.parse("mcp.x.p", CITY_STATE, "state=CA"));
        assertTrue(e.getMessage().contains("/mcp.x.p needs city"), e.getMessage());
        assertTrue(e.getMessage().contains("city=… [state=…]"), e.getMessage());
    }

    @Test
    void aPromptWithoutArgumentsKeepsTheTextToAppend() throws McpException {
        McpPromptArguments.Parsed p = McpPromptArguments.parse("p", List.of(), "and be brief");
        assertEquals(Map.of(), p.arguments());
        assertEquals("and be brief", p.extraText());
    }

    @Test
    void usageNamesTheOnlyArgument() {
        assertEquals("city", McpPromptArguments.usage(List.of(new PromptArgument("city", null, null, true))));
    }
}
