package cn.agentao.agent.core.tool.local;

/**
 * Command output kept within bounds however much arrives: the first {@code headChars} characters and the last
 * {@code tailChars}, with a count of what fell in between. Thread-safe.
 */
public final class BoundedOutput {
    private final int headChars;
    private final int tailChars;
    private final StringBuilder head = new StringBuilder();
    private final StringBuilder tail = new StringBuilder();
    private long total;

    BoundedOutput(int headChars, int tailChars) {
        this.headChars = headChars;
        this.tailChars = tailChars;
    }

    /**
     * {@code text} as a command's output of at most {@code limit} characters keeps it: whole when it fits, else its
     * first quarter and last three quarters of {@code limit} around a line saying how much was left out.
     */
    public static String headAndTail(String text, int limit) {
        if (text.length() <= limit) return text;
        BoundedOutput b = new BoundedOutput(limit / 4, limit);
        b.append(text);
        return b.render(limit - limit / 4);
    }

    synchronized void append(CharSequence s) {
        total += s.length();
        int i = 0;
        if (head.length() < headChars) {
            int n = Math.min(headChars - head.length(), s.length());
            head.append(s, 0, n);
            i = n;
        }
        if (i < s.length()) {
            tail.append(s, i, s.length());
            if (tail.length() > 2 * tailChars) tail.delete(0, tail.length() - tailChars);
        }
    }

    synchronized long total() {
        return total;
    }

    /** Everything kept, as at most {@code headChars + maxTail} characters plus an omission line. */
    synchronized String render(int maxTail) {
        int keptTail = Math.min(Math.min(maxTail, tailChars), tail.length());
        long omitted = total - head.length() - keptTail;
        if (omitted <= 0) return head.toString() + tail.substring(tail.length() - keptTail);
        return head + "\n… " + omitted + " characters omitted …\n" + tail.substring(tail.length() - keptTail);
    }

    /** The last {@code max} characters, preceded by an omission line when there was more. */
    synchronized String last(int max) {
        long keptHead = Math.max(0, Math.min(head.length(), max - (long) tail.length()));
        int keptTail = Math.min(tail.length(), max);
        long omitted = total - keptHead - keptTail;
        String end = head.substring(head.length() - (int) keptHead) + tail.substring(tail.length() - keptTail);
        return omitted <= 0 ? end : "… " + omitted + " earlier characters omitted\n" + end;
    }
}
