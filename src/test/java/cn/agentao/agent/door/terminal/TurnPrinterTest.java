package cn.agentao.agent.door.terminal;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallStatus;
import cn.agentao.agent.core.content.ToolKind;
import cn.agentao.agent.core.event.AgentEvent;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TurnPrinterTest {
    @Test
    void searchResultLinksShowOneLineEachWithNothingThatActsOnTheTerminal() {
        StringBuilder out = new StringBuilder();
        TurnPrinter printer = new TurnPrinter(new TurnPrinter.Screen() {
            @Override public void write(String text) { out.append(text); }
            @Override public int width() { return 0; }
        }, Ansi.PLAIN);
        printer.event(new AgentEvent.ToolCallStarted("c1", "Search the web: records", ToolKind.FETCH, ToolCallStatus.PENDING,
                List.of(), List.of(), null, null));
        printer.event(new AgentEvent.ToolCallUpdated("c1", null, null, ToolCallStatus.COMPLETED, List.of(
                new ToolCallContent.Content(new ContentBlock.ResourceLink("https://docs.example/records", "Records",
                        "Records in Java", "snippet", null, null, null, null), null),
                new ToolCallContent.Content(new ContentBlock.ResourceLink("https://evil.example/\u001b]52;c;eA==\u0007",
                        "x", "Title\u001b[2J\u202egnp.exe", null, null, null, null, null), null)), null, null, null));
        String shown = out.toString();
        assertTrue(shown.contains("    Records in Java <https://docs.example/records>"), shown);
        assertFalse(shown.contains("\u001b") || shown.contains("\u0007") || shown.contains("\u202e"), shown);
        assertTrue(shown.contains("Title<U+001B>[2J<U+202E>gnp.exe <https://evil.example/<U+001B>]52;c;eA==<U+0007>>"), shown);
    }
}
