package cn.agentao.agent.connect.smcp;

import java.util.List;
import java.util.Map;

/** An office's status as lines of plain text (for {@code agent smcp status}). */
public final class SmcpStatusText {
    private SmcpStatusText() {}

    public static String render(SmcpOffice.Status s) {
        StringBuilder out = new StringBuilder();
        out.append("office   ").append(s.office()).append(" at ").append(s.url()).append('\n');
        out.append("agent    ").append(s.agent()).append(" (A2C ").append(s.version()).append(")\n");
        out.append("state    ").append(switch (s.state()) {
            case JOINED -> "joined";
            case CONNECTING, NOT_STARTED -> "connecting";
            case RECONNECTING -> "reconnecting";
            case FAILED -> "failed";
            case CLOSED -> "closed";
        }).append(s.problem() != null ? ": " + s.problem() : "").append('\n');
        if (s.state() == SmcpOffice.State.JOINED) {
            if (s.computers().isEmpty()) out.append("no Computers in the office\n");
            for (Map.Entry<String, List<String>> c : s.computers().entrySet()) {
                out.append("computer ").append(c.getKey()).append(": ").append(c.getValue().size()).append(" tools\n");
                for (String tool : c.getValue()) out.append("  ").append(tool).append('\n');
            }
        }
        return out.toString();
    }
}
