package cn.agentao.agent.tools.web;

import java.net.URI;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Turns an HTML page into readable plain text with a little Markdown: headings as {@code #}, list items as
 * {@code -}, links as {@code [text](absolute url)}, table cells separated by {@code |}, {@code <pre>} kept
 * verbatim. Scripts, styles, comments, {@code <head>} (except the title), SVG and templates are dropped;
 * entities are decoded. Tolerant of broken markup: it never throws and never looks back.
 */
final class HtmlToText {
    private HtmlToText() {}

    private static final Set<String> SKIP_CONTENT = Set.of(
            "script", "style", "noscript", "template", "svg", "head", "iframe", "object", "canvas", "select");
    private static final Set<String> BLOCKS = Set.of(
            "p", "div", "section", "article", "header", "footer", "nav", "aside", "main", "ul", "ol", "dl", "dt",
            "dd", "table", "thead", "tbody", "tfoot", "tr", "blockquote", "figure", "figcaption", "form",
            "fieldset", "address", "details", "summary", "pre", "li", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
            "caption", "body", "html");
    private static final Map<String, String> ENTITIES = Map.ofEntries(
            Map.entry("amp", "&"), Map.entry("lt", "<"), Map.entry("gt", ">"), Map.entry("quot", "\""),
            Map.entry("apos", "'"), Map.entry("nbsp", "\u00a0"), Map.entry("copy", "©"), Map.entry("reg", "®"),
            Map.entry("trade", "™"), Map.entry("hellip", "…"), Map.entry("mdash", "—"), Map.entry("ndash", "–"),
            Map.entry("lsquo", "‘"), Map.entry("rsquo", "’"), Map.entry("ldquo", "“"), Map.entry("rdquo", "”"),
            Map.entry("laquo", "«"), Map.entry("raquo", "»"), Map.entry("bull", "•"), Map.entry("middot", "·"),
            Map.entry("times", "×"), Map.entry("divide", "÷"), Map.entry("deg", "°"), Map.entry("plusmn", "±"),
            Map.entry("para", "¶"), Map.entry("sect", "§"), Map.entry("cent", "¢"), Map.entry("pound", "£"),
            Map.entry("yen", "¥"), Map.entry("euro", "€"), Map.entry("larr", "←"), Map.entry("rarr", "→"),
            Map.entry("uarr", "↑"), Map.entry("darr", "↓"), Map.entry("ne", "≠"), Map.entry("le", "≤"),
            Map.entry("ge", "≥"), Map.entry("shy", ""), Map.entry("zwj", ""), Map.entry("zwnj", ""),
            Map.entry("ensp", " "), Map.entry("emsp", " "), Map.entry("thinsp", " "), Map.entry("iexcl", "¡"),
            Map.entry("iquest", "¿"), Map.entry("check", "✓"));

    static String convert(String html, URI base) {
        return new Converter(html, base).run();
    }

    private static final class Converter {
        private final String s;
        private final URI base;
        private final StringBuilder out = new StringBuilder();
        private int pos;
        private int pre;
        private String title;
        private String linkHref;
        private int linkStart = -1;
        private boolean firstCell;

        Converter(String s, URI base) {
            this.s = s;
            this.base = base;
        }

        String run() {
            while (pos < s.length()) {
                int lt = s.indexOf('<', pos);
                if (lt < 0) lt = s.length();
                if (lt > pos) text(s.substring(pos, lt));
                pos = lt;
                if (pos < s.length()) tag();
            }
            String body = tidy(out.toString());
            if (title != null && !title.isBlank() && !body.startsWith(title.strip())) {
                return "# " + title.strip() + "\n\n" + body;
            }
            return body;
        }

        private void tag() {
            if (s.startsWith("<!--", pos)) {
                int end = s.indexOf("-->", pos + 4);
                pos = end < 0 ? s.length() : end + 3;
                return;
            }
            int i = pos + 1;
            boolean closing = i < s.length() && s.charAt(i) == '/';
            if (closing) i++;
            int nameStart = i;
            while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '-')) i++;
            if (i == nameStart) {
                if (i < s.length() && (s.charAt(i) == '!' || s.charAt(i) == '?')) { // doctype, processing instruction
                    int end = s.indexOf('>', i);
                    pos = end < 0 ? s.length() : end + 1;
                } else { // a lone '<'
                    text("<");
                    pos++;
                }
                return;
            }
            String name = s.substring(nameStart, i).toLowerCase(Locale.ROOT);
            int end = tagEnd(i);
            String attrs = s.substring(i, Math.max(i, end - 1));
            pos = end;
            if (closing) close(name);
            else open(name, attrs);
        }

        /** Index just after the '>' ending a tag that starts before {@code from}, quotes respected. */
        private int tagEnd(int from) {
            char quote = 0;
            for (int j = from; j < s.length(); j++) {
                char c = s.charAt(j);
                if (quote != 0) {
                    if (c == quote) quote = 0;
                } else if (c == '"' || c == '\'') {
                    quote = c;
                } else if (c == '>') {
                    return j + 1;
                }
            }
            return s.length();
        }

        private void open(String name, String attrs) {
            if (name.equals("title")) {
                int end = indexOfIgnoreCase("</title", pos);
                title = decode(s.substring(pos, end < 0 ? s.length() : end)).replaceAll("\\s+", " ");
                skipPast(end, "title");
                return;
            }
            if (SKIP_CONTENT.contains(name) && !attrs.endsWith("/")) {
                if (name.equals("head")) { // keep the title, drop the rest
                    int end = indexOfIgnoreCase("</head", pos);
                    String head = s.substring(pos, end < 0 ? s.length() : end);
                    int t = head.toLowerCase(Locale.ROOT).indexOf("<title");
                    if (t >= 0) {
                        int gt = head.indexOf('>', t);
                        int te = head.toLowerCase(Locale.ROOT).indexOf("</title", t);
                        if (gt >= 0 && te > gt) title = decode(head.substring(gt + 1, te)).replaceAll("\\s+", " ");
                    }
                    skipPast(end, "head");
                } else {
                    skipPast(indexOfIgnoreCase("</" + name, pos), name);
                }
                return;
            }
            switch (name) {
                case "br" -> newline(1);
                case "hr" -> { newline(2); out.append("---"); newline(2); }
                case "li" -> { newline(1); out.append("- "); }
                case "h1", "h2", "h3", "h4", "h5", "h6" -> {
                    newline(2);
                    out.append("#".repeat(name.charAt(1) - '0')).append(' ');
                }
                case "tr" -> { newline(1); firstCell = true; }
                case "td", "th" -> {
                    if (!firstCell) out.append(" | ");
                    firstCell = false;
                }
                case "pre" -> { newline(2); pre++; }
                case "a" -> {
                    String href = attribute(attrs, "href");
                    String resolved = href == null ? null : absolute(href);
                    if (resolved != null) {
                        linkHref = resolved;
                        linkStart = out.length();
                        out.append('[');
                    }
                }
                case "img" -> {
                    String alt = attribute(attrs, "alt");
                    if (alt != null && !alt.isBlank()) out.append("[image: ").append(alt.strip()).append(']');
                }
                default -> {
                    if (BLOCKS.contains(name)) newline(name.equals("p") || name.equals("blockquote") ? 2 : 1);
                }
            }
        }

        private void close(String name) {
            switch (name) {
                case "a" -> {
                    if (linkHref != null) {
                        if (out.length() > linkStart + 1 && !out.substring(linkStart + 1).isBlank()) {
                            out.append("](").append(linkHref).append(')');
                        } else {
                            out.setLength(linkStart); // a link without text
                        }
                        linkHref = null;
                        linkStart = -1;
                    }
                }
                case "pre" -> { if (pre > 0) pre--; newline(2); }
                case "h1", "h2", "h3", "h4", "h5", "h6", "p", "blockquote", "table", "ul", "ol" -> newline(2);
                default -> {
                    if (BLOCKS.contains(name)) newline(1);
                }
            }
        }

        private void text(String raw) {
            String t = decode(raw);
            if (pre > 0) {
                out.append(t);
                return;
            }
            t = t.replaceAll("[\\s\u00a0]+", " ");
            if (t.isEmpty()) return;
            boolean atLineStart = out.isEmpty() || out.charAt(out.length() - 1) == '\n';
            boolean afterSpace = atLineStart || out.charAt(out.length() - 1) == ' ';
            if (t.startsWith(" ") && afterSpace) t = t.substring(1);
            out.append(t);
        }

        private void newline(int n) {
            while (!out.isEmpty() && out.charAt(out.length() - 1) == ' ') out.setLength(out.length() - 1);
            if (out.isEmpty()) return;
            int have = 0;
            for (int i = out.length() - 1; i >= 0 && out.charAt(i) == '\n'; i--) have++;
            for (; have < n; have++) out.append('\n');
        }

        private void skipPast(int closeTagStart, String name) {
            if (closeTagStart < 0) {
                pos = s.length();
                return;
            }
            int gt = s.indexOf('>', closeTagStart + name.length() + 2);
            pos = gt < 0 ? s.length() : gt + 1;
        }

        private int indexOfIgnoreCase(String needle, int from) {
            int n = needle.length();
            for (int i = from; i + n <= s.length(); i++) {
                if (s.regionMatches(true, i, needle, 0, n)) return i;
            }
            return -1;
        }

        private String absolute(String href) {
            String h = decode(href).strip();
            if (h.isEmpty() || h.startsWith("#") || h.regionMatches(true, 0, "javascript:", 0, 11)
                    || h.regionMatches(true, 0, "mailto:", 0, 7) || h.regionMatches(true, 0, "data:", 0, 5)) {
                return null;
            }
            try {
                return base == null ? h : base.resolve(h.replace(" ", "%20")).toString();
            } catch (IllegalArgumentException e) {
                return h;
            }
        }
    }

    /** The value of an attribute in a tag's attribute text, entities decoded; null when absent. */
    static String attribute(String attrs, String name) {
        String lower = attrs.toLowerCase(Locale.ROOT);
        int i = 0;
        while ((i = lower.indexOf(name, i)) >= 0) {
            boolean boundary = i == 0 || Character.isWhitespace(lower.charAt(i - 1));
            int j = i + name.length();
            while (j < attrs.length() && Character.isWhitespace(attrs.charAt(j))) j++;
            if (boundary && j < attrs.length() && attrs.charAt(j) == '=') {
                j++;
                while (j < attrs.length() && Character.isWhitespace(attrs.charAt(j))) j++;
                if (j >= attrs.length()) return "";
                char q = attrs.charAt(j);
                if (q == '"' || q == '\'') {
                    int end = attrs.indexOf(q, j + 1);
                    return decode(attrs.substring(j + 1, end < 0 ? attrs.length() : end));
                }
                int end = j;
                while (end < attrs.length() && !Character.isWhitespace(attrs.charAt(end)) && attrs.charAt(end) != '>') end++;
                return decode(attrs.substring(j, end));
            }
            i = j;
        }
        return null;
    }

    /** Decodes {@code &name;}, {@code &#123;} and {@code &#x1F;}; unknown entities stay as written. */
    static String decode(String text) {
        if (text.indexOf('&') < 0) return text;
        StringBuilder sb = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            int semi = c == '&' ? text.indexOf(';', i) : -1;
            if (semi > i + 1 && semi - i <= 12) {
                String name = text.substring(i + 1, semi);
                String value = null;
                if (name.startsWith("#")) {
                    try {
                        int cp = name.length() > 1 && (name.charAt(1) == 'x' || name.charAt(1) == 'X')
                                ? Integer.parseInt(name.substring(2), 16) : Integer.parseInt(name.substring(1));
                        value = cp == 0 || !Character.isValidCodePoint(cp) ? "\ufffd" : new String(Character.toChars(cp));
                    } catch (NumberFormatException e) {
                        value = null;
                    }
                } else {
                    value = ENTITIES.get(name);
                    if (value == null) value = ENTITIES.get(name.toLowerCase(Locale.ROOT));
                }
                if (value != null) {
                    sb.append(value);
                    i = semi + 1;
                    continue;
                }
            }
            sb.append(c);
            i++;
        }
        return sb.toString();
    }

    /** Trims line ends and collapses runs of blank lines. */
    private static String tidy(String text) {
        StringBuilder sb = new StringBuilder();
        int blank = 0;
        for (String line : text.split("\n", -1)) {
            String l = line.stripTrailing();
            if (l.isBlank()) {
                if (++blank > 1 || sb.isEmpty()) continue;
                sb.append('\n');
            } else {
                blank = 0;
                sb.append(l).append('\n');
            }
        }
        return sb.toString().strip() + "\n";
    }
}
