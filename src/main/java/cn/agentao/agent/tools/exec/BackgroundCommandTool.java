package cn.agentao.agent.tools.exec;

import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolKind;
import cn.agentao.agent.core.tool.BackgroundProcesses;
import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolArgs;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.permission.PermissionRequest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * The two tools that act on a command started with {@code run_shell_command} and {@code background: true}, by its id:
 * {@code shell_output} reads what it printed since the last read and whether it still runs; {@code shell_kill} ends
 * it and everything it started, and returns its last output. Neither has an effect outside what the session itself
 * started, so neither asks.
 */
public final class BackgroundCommandTool implements Tool {
    public static final String OUTPUT = "shell_output";
    public static final String KILL = "shell_kill";

    private static final ObjectNode SCHEMA = ToolArgs.schema("""
            {"type":"object","properties":{
              "id":{"type":"string","description":"The background command's id, as run_shell_command gave it (e.g. bg1)."}
            },"required":["id"],"additionalProperties":false}""");

    private final String name;
    private final boolean kill;

    private BackgroundCommandTool(String name, boolean kill) {
        this.name = name;
        this.kill = kill;
    }

    /** {@code shell_output}. */
    public static BackgroundCommandTool output() { return new BackgroundCommandTool(OUTPUT, false); }

    /** {@code shell_kill}. */
    public static BackgroundCommandTool kill() { return new BackgroundCommandTool(KILL, true); }

    @Override
    public String name() { return name; }

    @Override
    public String description() {
        return kill ? "End a command started with run_shell_command (background: true) and every process it started "
                + "(SIGTERM, then SIGKILL a moment later to what is left); returns what it printed since the last read."
                : "Read what a command started with run_shell_command (background: true) printed since the last read "
                + "(stdout and stderr merged; at most " + RunShellCommandTool.OUTPUT_LIMIT / 1024 + " KB are kept between "
                + "reads, the oldest dropped first), and whether it still runs or its exit code.";
    }

    @Override
    public ObjectNode inputSchema() { return SCHEMA.deepCopy(); }

    @Override
    public ToolKind kind() { return ToolKind.EXECUTE; }

    @Override
    public ToolInvocation prepare(JsonNode raw, ToolContext ctx) throws ToolException {
        ObjectNode args = ToolArgs.check(name, raw, SCHEMA);
        BackgroundProcesses.Entry e = BackgroundReport.entry(name, ctx, ToolArgs.string(args, "id"));
        return new ToolInvocation() {
            @Override public String title() { return (kill ? "End " : "Read output of ") + e.describe(); }

            @Override public List<ToolCallLocation> locations() { return List.of(); }

            @Override public PermissionRequest permission() { return new PermissionRequest.Generic(name, true, false); }

            @Override public ToolResult run(ToolProgress progress) {
                if (!kill) return BackgroundReport.result("", e, e.process().read());
                boolean wasRunning = e.process().running();
                if (wasRunning) e.process().kill();
                return BackgroundReport.result(wasRunning ? "" : e.id() + " had already ended.\n", e, e.process().read());
            }
        };
    }
}
