package cn.agentao.agent.tools;

import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolRegistry;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.core.tool.ToolSignal;
import cn.agentao.agent.tools.files.ReadFileTool;
import cn.agentao.agent.tools.user.TodoWriteTool;
import cn.agentao.agent.permission.NetworkGuard;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.core.content.PlanEntry;
import cn.agentao.agent.core.content.ToolKind;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static cn.agentao.agent.tools.ToolTestSupport.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ToolRegistryTest {
    @TempDir
    Path dir;

    @Test
    void builtinsAreAllThereWithObjectSchemas() {
        ToolRegistry registry = new ToolRegistry(BuiltinTools.create(NetworkGuard.standard()).all());
        assertEquals(List.of("read_file", "write_file", "edit", "list_directory", "glob", "grep", "run_shell_command",
                "shell_output", "shell_kill", "web_fetch", "todo_write", "ask_user"), registry.all().stream().map(Tool::name).toList());
        for (Tool t : registry.all()) {
            ObjectNode schema = t.inputSchema();
            assertEquals("object", schema.get("type").asText(), t.name());
            assertTrue(!t.description().isBlank() && t.kind() != null, t.name());
            schema.put("mutated", true);
            assertTrue(!t.inputSchema().has("mutated"), "schemas are copies");
            ToolException e = assertThrows(ToolException.class,
                    () -> t.prepare(json("{\"no_such_argument\":1}"), ToolTestSupport.context(dir)), t.name());
            assertTrue(e.getMessage().startsWith(t.name() + ":"), e.getMessage());
        }
        assertEquals(ToolKind.EXECUTE, registry.find("run_shell_command").orElseThrow().kind());
        assertTrue(registry.find("nope").isEmpty());
    }

    @Test
    void sessionToolsCanBeAddedButNotShadowBuiltins() {
        ToolRegistry registry = new ToolRegistry(BuiltinTools.create(NetworkGuard.standard()).all());
        Tool extra = new Tool() {
            @Override
            public String name() { return "mcp__x__y"; }

            @Override
            public String description() { return "an MCP tool"; }

            @Override
            public ObjectNode inputSchema() { return (ObjectNode) json("{\"type\":\"object\"}"); }

            @Override
            public ToolKind kind() { return ToolKind.OTHER; }

            @Override
            public ToolInvocation prepare(JsonNode args, ToolContext ctx) throws ToolException {
                throw new ToolException("not used");
            }
        };
        ToolRegistry session = registry.with(List.of(extra));
        assertEquals(13, session.all().size());
        assertEquals(12, registry.all().size(), "the shared registry is untouched");
        assertThrows(IllegalArgumentException.class, () -> registry.with(List.of(new ReadFileTool())));
    }

    @Test
    void todoWriteCarriesThePlan() throws Exception {
        ToolInvocation inv = new TodoWriteTool().prepare(json("""
                {"todos":[{"content":"Read code","status":"completed"},
                          {"content":"Fix bug","status":"in_progress","priority":"high"},
                          {"content":"Run tests","status":"pending"}]}"""), ToolTestSupport.context(dir));
        assertEquals(new PermissionRequest.Generic("todo_write", true, false), inv.permission());
        ToolResult r = inv.run(ToolProgress.NONE);
        assertEquals("Todo list updated: 3 items (1 completed, 1 in progress, 1 pending).", r.forModel());
        assertEquals(List.of(new PlanEntry("Read code", "medium", "completed"), new PlanEntry("Fix bug", "high", "in_progress"),
                new PlanEntry("Run tests", "medium", "pending")), ((ToolSignal.Plan) r.signal()).entries());
    }

    @Test
    void todoWriteValidatesItems() {
        TodoWriteTool tool = new TodoWriteTool();
        for (String bad : List.of("{\"todos\":[{\"content\":\"x\",\"status\":\"done\"}]}",
                "{\"todos\":[{\"content\":\"\",\"status\":\"pending\"}]}",
                "{\"todos\":[{\"content\":\"x\",\"status\":\"pending\",\"priority\":\"urgent\"}]}",
                "{\"todos\":[{\"content\":\"x\",\"status\":\"pending\",\"id\":1}]}",
                "{\"todos\":[\"x\"]}", "{\"todos\":{}}")) {
            assertThrows(ToolException.class, () -> tool.prepare(json(bad), ToolTestSupport.context(dir)), bad);
        }
    }
}
