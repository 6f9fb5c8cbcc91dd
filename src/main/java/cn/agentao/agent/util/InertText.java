package cn.agentao.agent.util;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;

/**
 * Text from the model, a tool, a file, a peer or the session store made inert before anyone sees it: nothing in it
 * can move the cursor, erase a line, set the terminal's title or clipboard, or hide or reorder what is shown. A
 * character that would act instead of print is shown as {@code <U+XXXX>} (its code point), the one visible form used
 * everywhere. Two strengths:
 * <ul>
 * <li>{@link #forTerminal}: for any text on its way to a terminal. C0 controls (ESC among them) but tab and line
 * feed, DEL and the C1 controls (U+0080–U+009F, 8-bit CSI U+009B among them) are shown; a carriage return before a
 * line feed, or at the end, is dropped (it moves nothing), one in the middle of a line (which would let the rest
 * overwrite it) is shown.</li>
 * <li>{@link #forApproval}: for what a person approves (a command, a tool call's title): all of the above, every
 * carriage return, and the characters that print nothing or change the direction of what follows: format
 * characters (bidi embeddings, overrides and isolates U+202A–U+202E, U+2066–U+2069, the marks U+200E/U+200F/U+061C,
 * zero-width U+200B–U+200D, U+2060, U+FEFF, soft hyphen, tag characters), line and paragraph separators, spaces
 * other than U+0020 (a no-break space looks like a space but does not separate words), fillers and variation
 * selectors. So what is shown is every character that will run.</li>
 * </ul>
 * The text the tool receives is never changed: only what is shown.
 */
public final class InertText {
    private InertText() {}

    /**
     * For JSON that may reach a terminal: JSON's own rules escape C0 controls (ESC as {@code \u001B}); these escape
     * DEL and the C1 controls as well, which JSON lets through raw.
     */
    public static final CharacterEscapes JSON_ESCAPES = new CharacterEscapes() {
        private final int[] ascii = standardAsciiEscapesForJSON();

        {
            ascii[0x7F] = ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() { return ascii; }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return ch >= 0x80 && ch <= 0x9F ? new SerializedString(String.format("\\u%04X", ch)) : null;
        }
    };

    /** {@code text} safe to write to a terminal (null stays null). */
    public static String forTerminal(String text) {
        return render(text, false);
    }

    /** {@code text} as a person approving it must see it: every character visible, nothing reordered (null stays null). */
    public static String forApproval(String text) {
        return render(text, true);
    }

    /** How one character is shown: {@code <U+XXXX>}. */
    public static String visible(int codePoint) {
        return String.format("<U+%04X>", codePoint);
    }

    private static String render(String text, boolean approval) {
        if (text == null) return null;
        StringBuilder out = null;
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            int next = i + Character.charCount(cp);
            boolean shown;
            if (cp == '\r' && !approval) {
                shown = next < text.length() && text.charAt(next) != '\n';
                if (!shown) { // dropped: it moves nothing before a line feed or at the end
                    if (out == null) out = new StringBuilder(text.length() + 16).append(text, 0, i);
                    i = next;
                    continue;
                }
            } else {
                shown = isControl(cp) || approval && isHidden(cp);
            }
            if (shown && out == null) out = new StringBuilder(text.length() + 16).append(text, 0, i);
            if (out != null) {
                if (shown) out.append(visible(cp));
                else out.appendCodePoint(cp);
            }
            i = next;
        }
        return out == null ? text : out.toString();
    }

    /** C0 but tab and line feed, DEL, C1. */
    private static boolean isControl(int cp) {
        return (cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7F && cp <= 0x9F);
    }

    /** Prints nothing, looks like something else, or reorders what follows. */
    private static boolean isHidden(int cp) {
        if (cp == '\r') return true;
        switch (Character.getType(cp)) {
            case Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR, Character.SURROGATE,
                 Character.UNASSIGNED, Character.PRIVATE_USE -> { return true; }
            case Character.SPACE_SEPARATOR -> { return cp != ' '; }
            default -> { }
        }
        return cp == 0x034F || cp == 0x115F || cp == 0x1160 || cp == 0x17B4 || cp == 0x17B5 || cp == 0x180E
                || cp == 0x3164 || cp == 0xFFA0 || (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE0100 && cp <= 0xE01EF)
                || (cp >= 0x180B && cp <= 0x180F);
    }

    /**
     * Text arriving in pieces (a streamed answer) on its way to a terminal: like {@link #forTerminal}, with a carriage
     * return at the end of a piece held until the next piece tells whether a line feed follows it.
     */
    public static final class Stream {
        private boolean heldReturn;

        /** The inert form of the next piece. */
        public String next(String piece) {
            if (piece == null || piece.isEmpty()) return "";
            String text = heldReturn ? "\r" + piece : piece;
            heldReturn = text.endsWith("\r");
            return forTerminal(text); // a return at the end is dropped here, and put back before the next piece
        }

        /** The stream ended: a held carriage return is dropped (it moves nothing at the end). */
        public void end() {
            heldReturn = false;
        }
    }
}
