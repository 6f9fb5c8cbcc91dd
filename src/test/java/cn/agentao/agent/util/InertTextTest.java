package cn.agentao.agent.util;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Every class of character that could act on a terminal or hide from a person, through both strengths. */
class InertTextTest {
    /** No character that a terminal acts upon is left: C0 but tab and line feed, DEL, C1. */
    private static void assertInert(String shown) {
        shown.codePoints().forEach(cp -> assertFalse((cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7F && cp <= 0x9F),
                () -> String.format("U+%04X left in %s", cp, shown)));
    }

    @Test
    void plainTextTabsLineFeedsAndUnicodeAreLeftAlone() {
        String text = "héllo\twörld\n日本語 👨‍👩‍👧 عربي\n";
        assertSame(text, InertText.forTerminal(text));
        assertNull(InertText.forTerminal(null));
        assertNull(InertText.forApproval(null));
    }

    @Test
    void theHiddenCommandIsShownWhole() {
        String command = "touch ../outside/X #\u001b[2K\u001b[1A\rRun `ls -la`\u001b[8m";
        String shown = InertText.forApproval("Run `" + command + "`");
        assertEquals("Run `touch ../outside/X #<U+001B>[2K<U+001B>[1A<U+000D>Run `ls -la`<U+001B>[8m`", shown);
        assertInert(shown);
        assertEquals("a<U+001B>[2K<U+001B>[1A<U+000D>b", InertText.forTerminal("a\u001b[2K\u001b[1A\rb"));
    }

    @Test
    void oscTitleAndClipboardSequencesAreInert() {
        String osc = "\u001b]0;PWNED\u0007 and \u001b]52;c;Y3VybCBldmlsIHwgc2g=\u001b\\ and \u009d0;x\u009c";
        String shown = InertText.forTerminal(osc);
        assertInert(shown);
        assertEquals("<U+001B>]0;PWNED<U+0007> and <U+001B>]52;c;Y3VybCBldmlsIHwgc2g=<U+001B>\\ and <U+009D>0;x<U+009C>", shown);
    }

    @Test
    void everyC0ButTabAndLineFeedEveryC1AndDelAreShown() {
        for (int cp = 0; cp <= 0x9F; cp++) {
            if (cp >= 0x20 && cp < 0x7F) continue;
            String text = "a" + (char) cp + "b";
            String expected = cp == '\t' || cp == '\n' ? text : "a" + String.format("<U+%04X>", cp) + "b";
            assertEquals(expected, InertText.forTerminal(text), "U+" + Integer.toHexString(cp));
            assertEquals(expected, InertText.forApproval(text), "U+" + Integer.toHexString(cp));
        }
        assertEquals("<U+009B>31mred", InertText.forTerminal("\u009b31mred"), "the 8-bit CSI");
    }

    @Test
    void aCarriageReturnThatCouldOverwriteIsShownOneThatMovesNothingIsDropped() {
        assertEquals("line one\nline two\n", InertText.forTerminal("line one\r\nline two\r\n"));
        assertEquals("progress", InertText.forTerminal("progress\r"));
        assertEquals("safe<U+000D>evil", InertText.forTerminal("safe\revil"));
        assertEquals("a<U+000D>\nb", InertText.forApproval("a\r\nb"), "for approval every return is shown");
    }

    @Test
    void approvalShowsBidiAndZeroWidthCharactersTheTerminalFormLeavesThem() {
        String trojan = "rm -rf ./build\u202E\u2066 # safe\u2069\u200B\u200C\u200D\u200E\u200F\u2060\uFEFF\u202A\u202B\u202C\u202D\u2067\u2068\u061C\u00AD";
        String shown = InertText.forApproval(trojan);
        assertEquals("rm -rf ./build<U+202E><U+2066> # safe<U+2069><U+200B><U+200C><U+200D><U+200E><U+200F><U+2060><U+FEFF>"
                + "<U+202A><U+202B><U+202C><U+202D><U+2067><U+2068><U+061C><U+00AD>", shown);
        assertEquals(trojan, InertText.forTerminal(trojan), "an answer in a right-to-left script keeps its marks on a terminal");
    }

    @Test
    void approvalShowsLookAlikeSpacesSeparatorsFillersTagsAndVariationSelectors() {
        assertEquals("rm<U+00A0>-rf", InertText.forApproval("rm\u00A0-rf"));
        assertEquals("a<U+3000>b<U+2009>c", InertText.forApproval("a\u3000b\u2009c"));
        assertEquals("a<U+2028>b<U+2029>c", InertText.forApproval("a\u2028b\u2029c"));
        assertEquals("a<U+3164>b<U+115F>c<U+FE0F>", InertText.forApproval("a\u3164b\u115Fc\uFE0F"));
        assertEquals("x<U+E0041><U+E007F>", InertText.forApproval("x" + Character.toString(0xE0041) + Character.toString(0xE007F)),
                "tag characters (invisible text for a model) are shown");
        assertEquals("x<U+D800>y", InertText.forApproval("x\uD800y"), "a lone surrogate");
        assertEquals("ls -la 日本 é", InertText.forApproval("ls -la 日本 é"));
    }

    @Test
    void aStreamHoldsAReturnAtTheEndOfAPieceUntilItSeesWhatFollows() {
        InertText.Stream s = new InertText.Stream();
        assertEquals("one", s.next("one\r"));
        assertEquals("\ntwo", s.next("\ntwo"), "CR LF split across pieces moves nothing");
        assertEquals("three", s.next("three\r"));
        assertEquals("<U+000D>over", s.next("over"), "a lone return across pieces is shown");
        assertEquals("<U+001B>]0;t<U+0007>", s.next("\u001b]0;t\u0007"));
        assertEquals("", s.next(""));
    }

    @Test
    void jsonEscapesEveryControlNotOnlyTheOnesJsonRequires() throws Exception {
        String json = Json.mapper().writer().with(InertText.JSON_ESCAPES)
                .writeValueAsString(Json.object().put("text", "\u001b]0;t\u0007 \u007f \u009b31m é 日本"));
        assertEquals("{\"text\":\"\\u001B]0;t\\u0007 \\u007F \\u009B31m é 日本\"}", json);
        assertInert(json);
        assertEquals("\u001b]0;t\u0007 \u007f \u009b31m é 日本", Json.mapper().readTree(json).path("text").asText(), "read back exactly");
    }
}
