package cn.agentao.agent.door.terminal;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class MarkdownRendererTest {
    private static final String ESC = "\u001b[";

    private static List<String> render(Ansi ansi, String markdown) {
        MarkdownRenderer r = new MarkdownRenderer(ansi);
        List<String> out = new ArrayList<>();
        for (String line : markdown.split("\n", -1)) out.addAll(r.line(line));
        out.addAll(r.finish());
        return out;
    }

    private static String strip(String s) { return s.replaceAll("\u001b\\[[0-9;]*m", ""); }

    @Test
    void withoutColourTheSourceIsPassedThrough() {
        String md = "# Title\n**bold** and `code`\n| a | b |\n|---|---|\n| 1 | 2 |";
        assertEquals(List.of(md.split("\n")), render(Ansi.PLAIN, md));
    }

    @Test
    void headingsEmphasisAndCodeAreStyledAndTheirMarkersGone() {
        List<String> out = render(new Ansi(true), "## Section\nSome **strong**, *soft* and `mono` text, [docs](https://x.y/z).");
        assertEquals("Section", strip(out.get(0)));
        assertTrue(out.get(0).contains(ESC + "1m"), "a heading is bold");
        assertEquals("Some strong, soft and mono text, docs (https://x.y/z).", strip(out.get(1)));
        assertTrue(out.get(1).contains(ESC + "1mstrong"));
        assertTrue(out.get(1).contains(ESC + "3msoft"));
        assertTrue(out.get(1).contains(ESC + "36mmono"));
    }

    @Test
    void listsQuotesRulesAndTasks() {
        List<String> out = render(new Ansi(true), "- one\n  * nested\n3. third\n> quoted\n---\n- [x] done\n- [ ] open");
        assertEquals(List.of("• one", "  • nested", "3. third", "│ quoted", "─".repeat(40), "☑ done", "☐ open"),
                out.stream().map(MarkdownRendererTest::strip).toList());
    }

    @Test
    void codeBlocksKeepTheirTextAndIgnoreMarkdownInside() {
        List<String> out = render(new Ansi(true), "```sh\necho **not bold**\n```");
        assertEquals(List.of("┌─ sh", "│ echo **not bold**", "└─"), out.stream().map(MarkdownRendererTest::strip).toList());
    }

    @Test
    void tablesWaitForTheirLastRowAndLineUp() {
        MarkdownRenderer r = new MarkdownRenderer(new Ansi(true));
        assertEquals(List.of(), r.line("| name | n |"));
        assertEquals(List.of(), r.line("|---|---:|"));
        assertEquals(List.of(), r.line("| longer name | 1 |"));
        List<String> out = r.line("after").stream().map(MarkdownRendererTest::strip).toList();
        assertEquals(List.of("name        │ n", "────────────┼──", "longer name │ 1", "after"), out);
    }

    @Test
    void noColourWhenAskedOrWhenTheTerminalCannot() {
        assertFalse(Ansi.forTerminal(cn.agentao.agent.config.AgentConfig.Terminal.from(java.util.Map.of("NO_COLOR", "1")), "xterm-256color", true).colour());
        assertFalse(Ansi.forTerminal(cn.agentao.agent.config.AgentConfig.Terminal.from(java.util.Map.of()), "dumb", true).colour());
        assertFalse(Ansi.forTerminal(cn.agentao.agent.config.AgentConfig.Terminal.from(java.util.Map.of()), "xterm", false).colour());
        assertTrue(Ansi.forTerminal(cn.agentao.agent.config.AgentConfig.Terminal.from(java.util.Map.of("NO_COLOR", "")), "xterm", true).colour(), "an empty NO_COLOR does not count");
    }

    @Test
    void onlyTheRenderersOwnEscapeCodesAreEmittedWithColourOrWithout() {
        String md = "# \u001b]0;PWNED\u0007Title\n**bold\u001b[2K** `\u009b1A` [link](http://x\u001b]52;c;eA==\u0007)\n| a\u001b[8m | b |\n|---|---|";
        for (Ansi ansi : List.of(new Ansi(true), Ansi.PLAIN)) {
            String out = String.join("\n", render(ansi, md));
            String withoutOwnStyles = out.replaceAll("\u001b\\[[0-9;]*m", "");
            assertFalse(withoutOwnStyles.contains("\u001b") || withoutOwnStyles.contains("\u009b") || withoutOwnStyles.contains("\u0007"), out);
            assertTrue(out.contains("<U+001B>]0;PWNED<U+0007>Title") && out.contains("<U+009B>1A"), out);
        }
    }
}
