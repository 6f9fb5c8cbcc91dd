package cn.agentao.agent.tools.user;

import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolKind;
import cn.agentao.agent.memory.Memory;
import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolArgs;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.core.tool.ToolSchemas;
import cn.agentao.agent.core.tool.ToolSource;
import cn.agentao.agent.permission.PermissionRequest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolSpecification;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * {@code save_memory}: one short fact into the user's or the project's memory ({@link Memory}), which later sessions
 * get in their system prompt. Offered only to sessions that keep memory ({@code Host.keepsMemory}: not a space's,
 * not an A2A caller's). It changes what later sessions are told, so it is judged as a change:
 * asked about in workspace-write (the answer can be "always" for the session), refused in read-only and plan,
 * allowed in full-access; the call shows the exact line and file either way.
 */
public final class SaveMemoryTool implements Tool {
    public static final String NAME = "save_memory";

    private static final ObjectNode SCHEMA = ToolArgs.schema("""
            {"type":"object","properties":{
              "fact":{"type":"string","description":"The fact, one short line (at most 500 characters)."},
              "scope":{"type":"string","enum":["user","project"],"description":"user: about the user, for every project; project: about this project only."}
            },"required":["fact","scope"],"additionalProperties":false}""");

    private final Memory memory;

    public SaveMemoryTool(Memory memory) {
        this.memory = memory;
    }

    /** The tool as a source; the process gives it to each session whose door keeps memory ({@code cli.CoreFactory}). */
    public static ToolSource source(Memory memory) {
        SaveMemoryTool tool = new SaveMemoryTool(memory);
        ToolSpecification spec = ToolSpecification.builder().name(NAME).description(tool.description())
                .parameters(ToolSchemas.objectSchema(tool.inputSchema())).build();
        return new ToolSource() {
            @Override public String name() { return "memory"; }
            @Override public List<ToolSpecification> specifications() { return List.of(spec); }
            @Override public Optional<Tool> tool(String name) { return NAME.equals(name) ? Optional.of(tool) : Optional.empty(); }
        };
    }

    @Override public String name() { return NAME; }

    @Override
    public String description() {
        return "Remember a short fact across sessions: it is added to the system prompt of later sessions. Use it when "
                + "the user asks you to remember something, or for a lasting preference (user scope) or project "
                + "convention (project scope) they would want next time. One line per fact; never secrets.";
    }

    @Override public ObjectNode inputSchema() { return SCHEMA.deepCopy(); }

    @Override public ToolKind kind() { return ToolKind.EDIT; }

    @Override
    public ToolInvocation prepare(JsonNode raw, ToolContext ctx) throws ToolException {
        ObjectNode args = ToolArgs.check(NAME, raw, SCHEMA);
        Memory.Scope scope = Memory.Scope.of(args.get("scope").asText());
        String fact = args.get("fact").asText().strip();
        if (fact.isEmpty()) throw new ToolException(NAME + ": the fact is empty");
        return new Invocation(memory, scope, ctx.cwd(), fact);
    }

    private record Invocation(Memory memory, Memory.Scope scope, Path project, String fact) implements ToolInvocation {
        @Override
        public String title() { return "Remember (" + scope.id() + "): " + (fact.length() > 80 ? fact.substring(0, 79) + "…" : fact); }

        @Override
        public List<ToolCallLocation> locations() { return List.of(new ToolCallLocation(memory.file(scope, project).toString(), null)); }

        @Override
        public PermissionRequest permission() { return new PermissionRequest.Generic(NAME, false, false); }

        @Override
        public ToolResult run(ToolProgress progress) {
            try {
                String line = memory.add(scope, project, fact);
                String msg = "Saved to the " + scope.id() + " memory (" + memory.file(scope, project) + "): " + line;
                return new ToolResult(msg, List.of(ToolCallContent.text(msg)), false, null);
            } catch (Memory.MemoryException e) {
                return ToolResult.error("Not saved: " + e.getMessage() + ".");
            }
        }
    }
}
