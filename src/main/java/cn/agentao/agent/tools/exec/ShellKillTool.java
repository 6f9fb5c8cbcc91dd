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

/** {@code shell_kill}: ends a background command and everything it started; returns its last output. */
public final class ShellKillTool implements Tool {
    public static final String NAME = "shell_kill";

    private static final ObjectNode SCHEMA = ToolArgs.schema("""
            {"type":"object","properties":{
              "id":{"type":"string","description":"The background command's id, as run_shell_command gave it (e.g. bg1)."}
            },"required":["id"],"additionalProperties":false}""");

    @Override
    public String name() { return NAME; }

    @Override
    public String description() {
        return "End a command started with run_shell_command (background: true) and every process it started "
                + "(SIGTERM, then SIGKILL a moment later to what is left); returns what it printed since the last read.";
    }

    @Override
    public ObjectNode inputSchema() { return SCHEMA.deepCopy(); }

    @Override
    public ToolKind kind() { return ToolKind.EXECUTE; }

    @Override
    public ToolInvocation prepare(JsonNode raw, ToolContext ctx) throws ToolException {
        ObjectNode args = ToolArgs.check(NAME, raw, SCHEMA);
        BackgroundProcesses.Entry e = BackgroundReport.entry(NAME, ctx, ToolArgs.string(args, "id"));
        return new ToolInvocation() {
            @Override public String title() { return "End " + e.describe(); }

            @Override public List<ToolCallLocation> locations() { return List.of(); }

            // it ends only what this session started: no effect outside the agent's own work
            @Override public PermissionRequest permission() { return new PermissionRequest.Generic(NAME, true, false); }

            @Override public ToolResult run(ToolProgress progress) {
                boolean wasRunning = e.process().running();
                if (wasRunning) e.process().kill();
                return BackgroundReport.result(wasRunning ? "" : e.id() + " had already ended.\n", e, e.process().read());
            }
        };
    }
}
