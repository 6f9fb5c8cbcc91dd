package cn.agentao.agent.tools.files;

import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolArgs;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.tools.ToolPaths;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolKind;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import cn.agentao.agent.util.IoErrors;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** {@code write_file}: creates a file or replaces its whole content; shows the change as a diff. */
public final class WriteFileTool implements Tool {
    public static final String NAME = "write_file";

    private static final ObjectNode SCHEMA = ToolArgs.schema("""
            {"type":"object","properties":{
              "path":{"type":"string","description":"File to write: absolute, or relative to the working directory. Missing directories are created."},
              "content":{"type":"string","description":"The complete new content of the file."}
            },"required":["path","content"],"additionalProperties":false}""");

    @Override
    public String name() { return NAME; }

    @Override
    public String description() {
        return "Create a file, or replace the whole content of an existing one. To change part of a file, "
                + "prefer edit.";
    }

    @Override
    public ObjectNode inputSchema() { return SCHEMA.deepCopy(); }

    @Override
    public ToolKind kind() { return ToolKind.EDIT; }

    @Override
    public ToolInvocation prepare(JsonNode raw, ToolContext ctx) throws ToolException {
        ObjectNode args = ToolArgs.check(NAME, raw, SCHEMA);
        Path path = ToolPaths.resolve(ctx, NAME, "path", ToolArgs.string(args, "path"));
        if (Files.isDirectory(path)) throw new ToolException(NAME + ": " + path + " is a directory");
        return new Invocation(ctx, path, ToolArgs.string(args, "content"));
    }

    private record Invocation(ToolContext ctx, Path path, String content) implements ToolInvocation {
        @Override
        public String title() { return "Write " + ToolPaths.display(ctx, path); }

        @Override
        public List<ToolCallLocation> locations() { return List.of(new ToolCallLocation(path.toString())); }

        @Override
        public PermissionRequest permission() { return new PermissionRequest.WritePath(NAME, path); }

        @Override
        public ToolResult run(ToolProgress progress) {
            boolean existed = Files.exists(path);
            String oldText = null;
            if (existed) {
                try {
                    oldText = ctx.files().readText(path, null, null);
                } catch (IOException e) {
                    oldText = "(previous content not shown: " + e.getMessage() + ")";
                }
            }
            try {
                ctx.files().writeText(path, content);
            } catch (IOException e) {
                return ToolResult.error("Cannot write " + path + ": " + IoErrors.describe(e));
            }
            long lines = content.isEmpty() ? 0 : content.lines().count();
            String msg = (existed ? "Replaced the content of " : "Created ") + path + " (" + lines + " lines).";
            return new ToolResult(msg, List.of(new ToolCallContent.Diff(path.toString(), oldText, content, null)),
                    false, Json.object().put("path", path.toString()).put("created", !existed));
        }
    }
}
