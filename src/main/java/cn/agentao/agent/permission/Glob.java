package cn.agentao.agent.permission;

import java.util.regex.Pattern;

/**
 * Glob patterns, compiled to regular expressions. Two flavours:
 * <ul>
 *   <li>{@link #text}: for rules over command lines, URLs and paths in the permissions file. {@code *} matches
 *       any run of characters (slashes included), {@code ?} one character; everything else is literal.</li>
 *   <li>{@link #path}: for file paths ({@code glob} and {@code grep} tools, {@code .gitignore}). {@code *} and
 *       {@code ?} stay within one path segment, {@code **} spans segments ({@code a/**}{@code /b} also matches
 *       {@code a/b}), {@code [abc]}, {@code [!a-z]} and {@code {x,y}} work as in a shell.</li>
 * </ul>
 */
public final class Glob {
    private Glob() {}

    public static Pattern text(String glob) {
        StringBuilder re = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            switch (c) {
                case '*' -> re.append(".*");
                case '?' -> re.append('.');
                default -> appendLiteral(re, c);
            }
        }
        return Pattern.compile(re.toString(), Pattern.DOTALL);
    }

    public static Pattern path(String glob) {
        StringBuilder re = new StringBuilder();
        int braces = 0;
        int n = glob.length();
        for (int i = 0; i < n; i++) {
            char c = glob.charAt(i);
            switch (c) {
                case '*' -> {
                    boolean doubleStar = i + 1 < n && glob.charAt(i + 1) == '*';
                    if (!doubleStar) {
                        re.append("[^/]*");
                        break;
                    }
                    boolean atSegmentStart = i == 0 || glob.charAt(i - 1) == '/';
                    i++;
                    while (i + 1 < n && glob.charAt(i + 1) == '*') i++;
                    if (atSegmentStart && i + 1 < n && glob.charAt(i + 1) == '/') {
                        re.append("(?:.*/)?"); // "**/" matches zero or more whole segments
                        i++;
                    } else {
                        re.append(".*");
                    }
                }
                case '?' -> re.append("[^/]");
                case '[' -> {
                    int close = findClass(glob, i);
                    if (close < 0) {
                        appendLiteral(re, c);
                        break;
                    }
                    re.append('[');
                    int j = i + 1;
                    if (glob.charAt(j) == '!' || glob.charAt(j) == '^') {
                        re.append('^');
                        j++;
                    }
                    for (; j < close; j++) {
                        char d = glob.charAt(j);
                        if (d == '\\' || d == '[' || d == ']' || d == '&' || d == '^') re.append('\\');
                        re.append(d);
                    }
                    re.append(']');
                    i = close;
                }
                case '{' -> {
                    braces++;
                    re.append("(?:");
                }
                case '}' -> {
                    if (braces > 0) {
                        braces--;
                        re.append(')');
                    } else {
                        appendLiteral(re, c);
                    }
                }
                case ',' -> {
                    if (braces > 0) re.append('|');
                    else appendLiteral(re, c);
                }
                case '\\' -> {
                    if (i + 1 < n) appendLiteral(re, glob.charAt(++i));
                    else appendLiteral(re, c);
                }
                default -> appendLiteral(re, c);
            }
        }
        while (braces-- > 0) re.append(')');
        return Pattern.compile(re.toString());
    }

    /** Index of the {@code ]} closing a class opened at {@code open}, or -1. A leading {@code ]} is literal. */
    private static int findClass(String glob, int open) {
        int j = open + 1;
        if (j < glob.length() && (glob.charAt(j) == '!' || glob.charAt(j) == '^')) j++;
        if (j < glob.length() && glob.charAt(j) == ']') j++;
        for (; j < glob.length(); j++) {
            if (glob.charAt(j) == ']') return j;
            if (glob.charAt(j) == '/') return -1;
        }
        return -1;
    }

    private static void appendLiteral(StringBuilder re, char c) {
        if ("\\.[]{}()<>*+-=!?^$|".indexOf(c) >= 0) re.append('\\');
        re.append(c);
    }

    /** True when the text contains glob metacharacters of the path flavour. */
    public static boolean hasWildcards(String s) {
        for (int i = 0; i < s.length(); i++) if ("*?[{".indexOf(s.charAt(i)) >= 0) return true;
        return false;
    }
}
