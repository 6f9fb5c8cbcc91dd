package cn.agentao.agent.tools.web;

import org.junit.jupiter.api.Test;

import java.net.URI;

import static org.junit.jupiter.api.Assertions.assertEquals;

class HtmlToTextTest {

    private static String convert(String html) {
        return HtmlToText.convert(html, URI.create("https://example.com/dir/page.html"));
    }

    @Test
    void keepsStructureAsLightMarkdown() {
        assertEquals("# Title\n\n## Sub\n\nText [link](https://example.com/dir/x.html) and [abs](https://other.org/).\n\n- a\n- b\n",
                convert("<h1>Title</h1><h2>Sub</h2><p>Text <a href='x.html'>link</a> and "
                        + "<a href=\"https://other.org/\">abs</a>.</p><ul><li>a</li><li>b</li></ul>"));
    }

    @Test
    void dropsScriptsStylesCommentsAndHead() {
        assertEquals("# T\n\nvisible\n", convert("<html><head><title>T</title><meta charset=utf-8>"
                + "<style>p{}</style></head><body><!-- hidden --><script>if (a < b) x();</script>"
                + "<p>visible</p><noscript>nojs</noscript></body></html>"));
    }

    @Test
    void preservesPreAndDecodesEntities() {
        assertEquals("a & b < c “q” é 😀\n\n  line 1\n    line 2\n",
                convert("<p>a &amp; b &lt; c &ldquo;q&rdquo; &#233; &#x1F600;</p><pre>  line 1\n    line 2</pre>"));
    }

    @Test
    void tablesAndBreaks() {
        assertEquals("a | b\n1 | 2\n\nx\ny\n",
                convert("<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>x<br>y"));
    }

    @Test
    void survivesBrokenMarkup() {
        assertEquals("a < b\n", convert("a < b"));
        assertEquals("unclosed\n", convert("<p>unclosed<script>never closed"));
        assertEquals("x\n", convert("<a href=\"javascript:alert(1)\">x</a><a href=#top></a>"));
        assertEquals("&bogus; ok\n", convert("&bogus; ok<div"));
    }
}
