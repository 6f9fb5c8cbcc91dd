package cn.agentao.agent.tools.exec;

import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.tool.BackgroundProcesses;
import cn.agentao.agent.core.tool.CommandRunner;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/** How a background command's output and state read for the model and the user (one place for the three tools). */
final class BackgroundReport {
    private BackgroundReport() {}

    /** The session's table, or a clear error where commands cannot run in the background. */
    static BackgroundProcesses table(String tool, ToolContext ctx) throws ToolException {
        BackgroundProcesses t = ctx.background();
        if (t == null) throw new ToolException(tool + ": commands cannot run in the background in this session");
        return t;
    }

    /** The entry {@code id}, or an error naming the ones there are. */
    static BackgroundProcesses.Entry entry(String tool, ToolContext ctx, String id) throws ToolException {
        BackgroundProcesses t = table(tool, ctx);
        return t.get(id.strip()).orElseThrow(() -> new ToolException(tool + ": no background command " + id.strip()
                + (t.all().isEmpty() ? " (none was started in this session)"
                : " (there are: " + String.join(", ", t.all().stream().map(BackgroundProcesses.Entry::id).toList()) + ")")));
    }

    /** What it printed since the last read, then its state; {@code lead} opens the text (e.g. "Started …"). */
    static ToolResult result(String lead, BackgroundProcesses.Entry e, CommandRunner.Output out) {
        StringBuilder sb = new StringBuilder(lead);
        if (out.dropped() > 0) {
            sb.append("[").append(out.dropped()).append(" earlier characters were dropped: more was printed than is kept between reads]\n");
        }
        sb.append(out.text().isEmpty() ? "(no new output)\n" : out.text());
        if (!out.text().isEmpty() && !out.text().endsWith("\n")) sb.append('\n');
        if (out.sandboxFailure() != null) {
            sb.append("[The sandbox could not start the command, so it did not run: ").append(out.sandboxFailure()).append("]");
        } else if (out.running()) {
            sb.append("[").append(e.id()).append(" is still running: read more with shell_output, end it with shell_kill]");
        } else if (out.killed()) {
            sb.append("[").append(e.id()).append(" was ended by shell_kill").append(exit(out.exitCode())).append("]");
        } else {
            sb.append("[").append(e.id()).append(" has exited").append(exit(out.exitCode())).append("]");
        }
        for (String note : e.endNotes()) sb.append('\n').append(note);
        ObjectNode raw = Json.object().put("id", e.id()).put("pid", e.process().pid()).put("running", out.running())
                .put("dropped", out.dropped()).put("sandboxed", e.sandboxed());
        if (out.exitCode() != null) raw.put("exitCode", out.exitCode());
        boolean failed = out.sandboxFailure() != null;
        return new ToolResult(sb.toString(), List.of(ToolCallContent.text(sb.toString())), failed, raw);
    }

    private static String exit(Integer code) {
        if (code == null) return "";
        return " with code " + code + (code > 128 && code < 128 + 65 ? " (signal " + (code - 128) + ")" : "");
    }
}
