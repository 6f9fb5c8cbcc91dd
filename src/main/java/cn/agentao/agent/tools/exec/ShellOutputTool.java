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

/** {@code shell_output}: what a background command printed since the last read, and whether it still runs. */
public final class ShellOutputTool implements Tool {
    public static final String NAME = "shell_output";

    private static final ObjectNode SCHEMA = ToolArgs.schema("""
            {"type":"object","properties":{
              "id":{"type":"string","description":"The background command's id, as run_shell_command gave it (e.g. bg1)."}
            },"required":["id"],"additionalProperties":false}""");

    @Override
    public String name() { return NAME; }

    @Override
    public String description() {
        return "Read what a command started with run_shell_command (background: true) printed since the last read "
                + "(stdout and stderr merged; at most " + RunShellCommandTool.OUTPUT_LIMIT / 1024 + " KB are kept between "
                + "reads, the oldest dropped first), and whether it still runs or its exit code.";
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
            @Override public String title() { return "Read output of " + e.describe(); }

            @Override public List<ToolCallLocation> locations() { return List.of(); }

            @Override public PermissionRequest permission() { return new PermissionRequest.Generic(NAME, true, false); }

            @Override public ToolResult run(ToolProgress progress) {
                return BackgroundReport.result("", e, e.process().read());
            }
        };
    }
}
