package cn.agentao.agent.model;

import java.nio.charset.StandardCharsets;

/**
 * The provider answered 200 but what it streamed is not a valid event stream (an event's data is not JSON). Carries
 * only the start of the offending line, made inert (bounded, no control or bidirectional-override characters), never
 * the parser's own words. Trying again cannot help: {@link ModelErrors#failure} reports it as not retryable.
 */
final class MalformedStreamException extends RuntimeException {
    /** How much of the offending line is quoted. */
    static final int QUOTED_CHARS = 60;

    private final String lineStart;

    private MalformedStreamException(String lineStart) {
        super("the provider sent data that is not a valid event stream", null, false, false);
        this.lineStart = lineStart;
    }

    /** For the event whose data is {@code data[0, length)}. */
    static MalformedStreamException of(byte[] data, int length) {
        int take = Math.min(length, QUOTED_CHARS * 4); // enough bytes for QUOTED_CHARS characters of any width
        String start = new String(data, 0, take, StandardCharsets.UTF_8);
        return new MalformedStreamException("data: " + inert(start, QUOTED_CHARS, length > take));
    }

    /** The offending line's start, safe to show: at most {@link #QUOTED_CHARS} characters, then "…" if cut. */
    String lineStart() {
        return lineStart;
    }

    /** {@code text} cut to {@code max} code points, each control, format or replacement character shown as '?'. */
    static String inert(String text, int max, boolean more) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), max) + 1);
        int count = 0;
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            if (count == max) {
                more = true;
                break;
            }
            int type = Character.getType(cp);
            boolean unsafe = Character.isISOControl(cp) || type == Character.FORMAT || type == Character.SURROGATE
                    || type == Character.PRIVATE_USE || type == Character.UNASSIGNED || cp == 0xFFFD
                    || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR;
            out.appendCodePoint(unsafe ? '?' : cp);
            count++;
        }
        return more ? out.append('…').toString() : out.toString();
    }
}
