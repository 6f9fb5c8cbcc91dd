package cn.agentao.agent.tools.user;

import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolArgs;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.core.tool.ToolSignal;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.core.content.PlanEntry;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolKind;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code todo_write}: the model's task list, given whole on every call. Its result carries the list as a
 * {@link ToolSignal.Plan}, which the core shows to the user (an ACP {@code plan} update) and records.
 */
public final class TodoWriteTool implements Tool {
    public static final String NAME = "todo_write";
    static final int MAX_ITEMS = 100;
    private static final Set<String> STATUSES = Set.of("pending", "in_progress", "completed");
    private static final Set<String> PRIORITIES = Set.of("high", "medium", "low");
    private static final Set<String> ITEM_KEYS = Set.of("content", "status", "priority");

    private static final ObjectNode SCHEMA = ToolArgs.schema("""
            {"type":"object","properties":{
              "todos":{"type":"array","description":"The complete todo list (replaces the previous one).",
                "items":{"type":"object","properties":{
                  "content":{"type":"string","description":"What to do."},
                  "status":{"type":"string","enum":["pending","in_progress","completed"]},
                  "priority":{"type":"string","enum":["high","medium","low"],"description":"Default medium."}},
                  "required":["content","status"],"additionalProperties":false}}
            },"required":["todos"],"additionalProperties":false}""");

    @Override
    public String name() { return NAME; }

    @Override
    public String description() {
        return "Write your todo list for the current task; the user sees it as a plan. Send the whole list each time "
                + "(it replaces the previous one), with each item pending, in_progress or completed. Use it for "
                + "work with several steps; keep one item in_progress at a time.";
    }

    @Override
    public ObjectNode inputSchema() { return SCHEMA.deepCopy(); }

    @Override
    public ToolKind kind() { return ToolKind.THINK; }

    @Override
    public ToolInvocation prepare(JsonNode raw, ToolContext ctx) throws ToolException {
        ObjectNode args = ToolArgs.check(NAME, raw, SCHEMA);
        List<PlanEntry> entries = new ArrayList<>();
        for (JsonNode item : args.get("todos")) {
            String where = "todos[" + entries.size() + "]";
            if (!item.isObject()) throw new ToolException(NAME + ": " + where + " must be an object");
            for (var field : item.properties()) {
                if (!ITEM_KEYS.contains(field.getKey())) {
                    throw new ToolException(NAME + ": unknown key '" + field.getKey() + "' in " + where
                            + " (expected content, status, priority)");
                }
            }
            String content = item.path("content").isTextual() ? item.get("content").asText().strip() : "";
            if (content.isEmpty()) throw new ToolException(NAME + ": " + where + " needs a non-empty content");
            String status = item.path("status").asText("");
            if (!STATUSES.contains(status)) {
                throw new ToolException(NAME + ": " + where + ".status must be pending, in_progress or completed");
            }
            String priority = item.hasNonNull("priority") ? item.get("priority").asText() : "medium";
            if (!PRIORITIES.contains(priority)) {
                throw new ToolException(NAME + ": " + where + ".priority must be high, medium or low");
            }
            entries.add(new PlanEntry(content, priority, status));
        }
        if (entries.size() > MAX_ITEMS) throw new ToolException(NAME + ": at most " + MAX_ITEMS + " items");
        return new Invocation(List.copyOf(entries));
    }

    private record Invocation(List<PlanEntry> entries) implements ToolInvocation {
        @Override
        public String title() { return "Update todo list (" + entries.size() + " items)"; }

        @Override
        public List<ToolCallLocation> locations() { return List.of(); }

        @Override
        public PermissionRequest permission() { return new PermissionRequest.Generic(NAME, true, false); }

        @Override
        public ToolResult run(ToolProgress progress) {
            ObjectNode raw = Json.object();
            ArrayNode plan = raw.putArray("plan");
            long done = 0, active = 0;
            for (PlanEntry e : entries) {
                plan.addObject().put("content", e.content()).put("priority", e.priority()).put("status", e.status());
                if (e.status().equals("completed")) done++;
                if (e.status().equals("in_progress")) active++;
            }
            String msg = entries.isEmpty() ? "Todo list cleared."
                    : "Todo list updated: " + entries.size() + " items (" + done + " completed, " + active
                    + " in progress, " + (entries.size() - done - active) + " pending).";
            return new ToolResult(msg, List.of(), false, raw, new ToolSignal.Plan(entries));
        }
    }
}
