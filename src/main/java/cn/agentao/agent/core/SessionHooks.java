package cn.agentao.agent.core;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.hook.HookCall;
import cn.agentao.agent.core.hook.HookEvent;
import cn.agentao.agent.core.hook.HookOutcome;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Path;
import java.util.List;

/**
 * The session's side of the hooks: the payload of each event in Claude Code's field names ({@code session_id},
 * {@code cwd}, {@code permission_mode}, {@code hook_event_name}, then the event's own), the call, and the notices.
 */
final class SessionHooks {
    private SessionHooks() {}

    static HookOutcome preToolUse(Session rt, String tool, String callId, JsonNode args, Cancellation cancel) {
        ObjectNode p = payload(rt, HookEvent.PRE_TOOL_USE);
        p.put("tool_name", tool).set("tool_input", toolInput(rt, args));
        p.put("tool_use_id", callId);
        return run(rt, HookEvent.PRE_TOOL_USE, tool, p, cancel);
    }

    static HookOutcome postToolUse(Session rt, String tool, String callId, JsonNode args, ToolResult result, Cancellation cancel) {
        ObjectNode p = payload(rt, HookEvent.POST_TOOL_USE);
        p.put("tool_name", tool).set("tool_input", toolInput(rt, args));
        p.put("tool_use_id", callId);
        ObjectNode response = p.putObject("tool_response");
        response.put("output", result.forModel()).put("is_error", result.isError());
        if (result.rawOutput() != null) response.set("raw", result.rawOutput());
        return run(rt, HookEvent.POST_TOOL_USE, tool, p, cancel);
    }

    static HookOutcome userPromptSubmit(Session rt, List<ContentBlock> prompt, Cancellation cancel) {
        if (rt.role() != null) return HookOutcome.NONE; // a subagent's task is the model's, not a prompt the user submitted
        ObjectNode p = payload(rt, HookEvent.USER_PROMPT_SUBMIT);
        StringBuilder text = new StringBuilder();
        for (ContentBlock b : prompt) if (b instanceof ContentBlock.Text t) text.append(text.isEmpty() ? "" : "\n").append(t.text());
        p.put("prompt", text.toString());
        return run(rt, HookEvent.USER_PROMPT_SUBMIT, null, p, cancel);
    }

    static HookOutcome stop(Session rt, boolean active, Cancellation cancel) {
        if (rt.role() != null) return HookOutcome.NONE; // a subagent's end is the parent's task call ending, not a stop
        ObjectNode p = payload(rt, HookEvent.STOP);
        p.put("stop_hook_active", active);
        return run(rt, HookEvent.STOP, null, p, cancel);
    }

    static HookOutcome sessionStart(Session rt, String source, Cancellation cancel) {
        ObjectNode p = payload(rt, HookEvent.SESSION_START);
        p.put("source", source);
        return run(rt, HookEvent.SESSION_START, source, p, cancel);
    }

    /** Runs the event's hooks; the session's known secrets are masked in the payload as in tool output. */
    private static HookOutcome run(Session rt, HookEvent event, String subject, ObjectNode payload, Cancellation cancel) {
        ObjectNode masked = (ObjectNode) new ToolOutputMask(rt.children().credentials()).json(payload);
        HookOutcome out = rt.hooks().run(new HookCall(event, subject, masked, rt.id(), rt.cwd(), rt.children(), cancel));
        out.notices().forEach(rt::notice);
        return out;
    }

    private static ObjectNode payload(Session rt, HookEvent event) {
        ObjectNode p = Json.object();
        p.put("session_id", rt.id());
        p.put("cwd", rt.cwd() == null ? null : rt.cwd().toString());
        p.put("permission_mode", rt.modeId());
        p.put("hook_event_name", event.wire());
        return p;
    }

    /**
     * The call's arguments as given, plus {@code file_path} (absolute) beside a {@code path}, the name Claude Code's
     * file tools use, so that scripts written for them find the file.
     */
    private static JsonNode toolInput(Session rt, JsonNode args) {
        if (args == null || !args.isObject()) return Json.object();
        ObjectNode in = ((ObjectNode) args).deepCopy();
        if (in.path("path").isTextual() && !in.has("file_path") && rt.cwd() != null) {
            try {
                in.put("file_path", rt.cwd().resolve(Path.of(in.path("path").textValue())).normalize().toString());
            } catch (RuntimeException e) { // not a path: left without the alias
            }
        }
        return in;
    }
}
