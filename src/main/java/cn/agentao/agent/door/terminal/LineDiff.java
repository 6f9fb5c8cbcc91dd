package cn.agentao.agent.door.terminal;

import java.util.ArrayList;
import java.util.List;

/** A line diff for showing an edit: the changed lines with a little context, '-' old and '+' new. */
final class LineDiff {
    /** One line of the shown diff: {@code ' '}, {@code '-'} or {@code '+'}, or {@code '…'} for skipped context. */
    record Line(char kind, String text) {}

    private static final int MAX_CELLS = 4_000_000;

    private LineDiff() {}

    static List<Line> diff(String oldText, String newText, int context) {
        List<String> a = oldText == null || oldText.isEmpty() ? List.of() : List.of(oldText.split("\n", -1));
        List<String> b = newText == null || newText.isEmpty() ? List.of() : List.of(newText.split("\n", -1));
        int prefix = 0;
        while (prefix < a.size() && prefix < b.size() && a.get(prefix).equals(b.get(prefix))) prefix++;
        int suffix = 0;
        while (suffix < a.size() - prefix && suffix < b.size() - prefix
                && a.get(a.size() - 1 - suffix).equals(b.get(b.size() - 1 - suffix))) suffix++;
        List<String> x = a.subList(prefix, a.size() - suffix);
        List<String> y = b.subList(prefix, b.size() - suffix);
        List<Line> middle = new ArrayList<>();
        if ((long) x.size() * y.size() > MAX_CELLS) { // too large to align: all old, then all new
            x.forEach(l -> middle.add(new Line('-', l)));
            y.forEach(l -> middle.add(new Line('+', l)));
        } else {
            int[][] lcs = new int[x.size() + 1][y.size() + 1];
            for (int i = x.size() - 1; i >= 0; i--) {
                for (int j = y.size() - 1; j >= 0; j--) {
                    lcs[i][j] = x.get(i).equals(y.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
                }
            }
            int i = 0, j = 0;
            while (i < x.size() || j < y.size()) {
                if (i < x.size() && j < y.size() && x.get(i).equals(y.get(j))) { middle.add(new Line(' ', x.get(i))); i++; j++; }
                else if (i < x.size() && (j == y.size() || lcs[i + 1][j] >= lcs[i][j + 1])) middle.add(new Line('-', x.get(i++)));
                else middle.add(new Line('+', y.get(j++))); // a replaced line shows old then new
            }
        }
        List<Line> out = new ArrayList<>();
        int before = Math.min(context, prefix);
        if (prefix > before) out.add(new Line('…', ""));
        for (int k = prefix - before; k < prefix; k++) out.add(new Line(' ', a.get(k)));
        out.addAll(middle);
        int after = Math.min(context, suffix);
        for (int k = 0; k < after; k++) out.add(new Line(' ', a.get(a.size() - suffix + k)));
        if (suffix > after) out.add(new Line('…', ""));
        return out;
    }
}
