package cn.agentao.agent.tools;

import cn.agentao.agent.core.tool.SimpleToolContext;
import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.core.tool.UserQuestions;
import cn.agentao.agent.core.tool.local.LocalCommandRunner;
import cn.agentao.agent.core.tool.local.LocalFileAccess;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancellationSource;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.core.content.ToolCallContent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.core.JsonProcessingException;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Contexts and helpers for tool tests: real files, real processes. */
public final class ToolTestSupport {
    private ToolTestSupport() {}

    public static SimpleToolContext context(Path cwd) {
        return context(cwd, new CancellationSource());
    }

    public static SimpleToolContext context(Path cwd, Cancellation cancellation) {
        return new SimpleToolContext("s1", cwd, List.of(cwd), new LocalFileAccess(), new LocalCommandRunner(),
                UserQuestions.UNAVAILABLE, cancellation);
    }

    public static JsonNode json(String text) {
        try {
            return Json.mapper().readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** Prepares and runs a call with no permission check. */
    public static ToolResult run(Tool tool, ToolContext ctx, String args) throws Exception {
        return tool.prepare(json(args), ctx).run(ToolProgress.NONE);
    }

    /** Records every progress update. */
    public static final class RecordingProgress implements ToolProgress {
        public final List<List<ToolCallContent>> updates = new CopyOnWriteArrayList<>();

        @Override
        public void show(List<ToolCallContent> wholeContent) {
            updates.add(wholeContent);
        }

        public String lastText() {
            if (updates.isEmpty()) return "";
            ToolCallContent c = updates.get(updates.size() - 1).get(0);
            return c instanceof ToolCallContent.Content content
                    ? ((cn.agentao.agent.core.content.ContentBlock.Text) content.content()).text() : "";
        }
    }
}
