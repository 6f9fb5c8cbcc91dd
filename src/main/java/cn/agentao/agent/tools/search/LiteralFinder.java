package cn.agentao.agent.tools.search;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Finds where any of a few literals occurs in UTF-8 bytes, optionally ignoring ASCII case, so text that cannot
 * match a regular expression is passed over without being decoded: long literals by Horspool's skip search,
 * short ones by scanning eight bytes at a time for their rarest byte. With {@link Libc} (and case kept),
 * whether a file holds any literal at all is first asked of libc's {@code memmem} over the file in native memory.
 */
final class LiteralFinder {
    /** From here on, Horspool skips further than a scan for one byte. */
    static final int HORSPOOL_FROM = 16;
    /** Bytes of source text from the most to the least frequent (roughly); bytes not listed are rarer still. */
    private static final String COMMON = " etaoinsrlcdhupmfgybw.,;()=\"'\n\t_/*-:{}ETAOINSRLCDHUPMFGYBWkvxjqzKVXJQZ"
            + "0123456789<>[]+!&|#@$%^~`?\\";

    private final byte[][] literals;
    private final int[][] skips;
    private final int[] anchors;
    private final boolean ignoreCase;
    private final Libc scan;
    /** The literals in native memory for {@link #scan}; null without it. */
    private final ByteBuffer[] needles;

    /** The other sets of {@link RequiredLiterals#every} in native memory (one of each must be in a file); else null. */
    private final ByteBuffer[][] others;

    /**
     * @param every sets of literals one of each of which every match holds ({@link RequiredLiterals#every}): the
     *              first is searched for, the others only asked of a whole file (by libc, case kept)
     * @param scan  libc's scans, or null to do without
     */
    LiteralFinder(List<List<String>> every, boolean ignoreCase, Libc scan) {
        List<String> texts = every.get(0);
        this.ignoreCase = ignoreCase;
        this.scan = ignoreCase ? null : scan;
        this.needles = this.scan == null ? null : new ByteBuffer[texts.size()];
        this.others = this.scan == null ? null : new ByteBuffer[every.size() - 1][];
        for (int s = 1; others != null && s < every.size(); s++) {
            others[s - 1] = every.get(s).stream().map(LiteralFinder::direct).toArray(ByteBuffer[]::new);
        }
        literals = new byte[texts.size()][];
        skips = new int[texts.size()][];
        anchors = new int[texts.size()];
        for (int k = 0; k < texts.size(); k++) {
            String t = ignoreCase ? texts.get(k).toLowerCase(java.util.Locale.ROOT) : texts.get(k);
            byte[] p = t.getBytes(StandardCharsets.UTF_8);
            int[] skip = new int[256];
            java.util.Arrays.fill(skip, p.length);
            for (int j = 0; j < p.length - 1; j++) {
                int b = p[j] & 0xff;
                skip[b] = p.length - 1 - j;
                if (ignoreCase && b >= 'a' && b <= 'z') skip[b - 32] = p.length - 1 - j;
            }
            literals[k] = p;
            skips[k] = skip;
            int anchor = 0;
            for (int j = 1; j < p.length; j++) if (rank(p[j]) > rank(p[anchor])) anchor = j;
            anchors[k] = anchor;
            if (needles != null) needles[k] = direct(t);
        }
    }

    /** Whether {@link #next} searches a direct buffer with libc's {@code memmem} (case kept, scans given). */
    boolean isNative() {
        return needles != null;
    }

    /**
     * False when [0, n) of {@code direct} lacks every literal of one of the other required sets, so it cannot match
     * (true without native scans).
     */
    boolean holdsTheOthers(ByteBuffer direct, int n) {
        if (others == null) return true;
        for (ByteBuffer[] set : others) {
            boolean found = false;
            for (ByteBuffer needle : set) {
                if (scan.indexOf(direct, 0, n, needle) >= 0) {
                    found = true;
                    break;
                }
            }
            if (!found) return false;
        }
        return true;
    }

    private static ByteBuffer direct(String literal) {
        byte[] p = literal.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocateDirect(p.length).put(p).flip();
    }

    /** A fresh per-file cursor (remembers later occurrences already found). */
    int[] cursor() {
        int[] c = new int[literals.length];
        java.util.Arrays.fill(c, -2);
        return c;
    }

    /**
     * The first position at or after {@code from} where a literal starts, or -1: searched in {@code direct} when
     * given and {@link #isNative()} ({@code text} may then be null), else in {@code text}.
     */
    int next(byte[] text, ByteBuffer direct, int from, int to, int[] cursor) {
        boolean inNative = direct != null && needles != null;
        int best = -1;
        for (int k = 0; k < literals.length; k++) {
            int at = cursor[k];
            if (at == -1) continue;
            if (at < from) {
                cursor[k] = at = inNative ? scan.indexOf(direct, from, to, needles[k])
                        : literals[k].length >= HORSPOOL_FROM
                        ? horspool(text, from, to, literals[k], skips[k]) : scan(text, from, to, literals[k], anchors[k]);
            }
            if (at >= 0 && (best < 0 || at < best)) best = at;
        }
        return best;
    }

    private static int rank(byte b) {
        int i = COMMON.indexOf(b & 0xff);
        return i < 0 ? COMMON.length() : i;
    }

    /** Looks for the literal's rarest byte eight bytes at a time, then compares the whole literal there. */
    private int scan(byte[] t, int from, int to, byte[] p, int anchor) {
        byte a = p[anchor];
        boolean letter = ignoreCase && a >= 'a' && a <= 'z';
        int last = to - p.length + anchor; // the last place the anchor byte may be
        for (int i = from + anchor; i <= last; i++) {
            i = letter ? ByteScan.indexOfEither(t, i, last + 1, a, (byte) (a - 32)) : ByteScan.indexOf(t, i, last + 1, a);
            if (i < 0) return -1;
            int s = i - anchor, j = 0;
            while (j < p.length && same(t[s + j], p[j])) j++;
            if (j == p.length) return s;
        }
        return -1;
    }

    private int horspool(byte[] t, int from, int to, byte[] p, int[] skip) {
        int last = p.length - 1;
        int tail = p[last] & 0xff;
        int i = from + last;
        while (i < to) {
            int c = t[i] & 0xff;
            if (ignoreCase && c - 'A' < 26 && c >= 'A') c |= 0x20;
            if (c == tail) {
                int j = last - 1, s = i - last;
                while (j >= 0 && same(t[s + j], p[j])) j--;
                if (j < 0) return s;
            }
            i += skip[t[i] & 0xff];
        }
        return -1;
    }

    private boolean same(byte textByte, byte patternByte) {
        if (textByte == patternByte) return true;
        if (!ignoreCase) return false;
        int c = textByte & 0xff;
        return c >= 'A' && c <= 'Z' && (c | 0x20) == patternByte;
    }
}
