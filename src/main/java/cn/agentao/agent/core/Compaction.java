package cn.agentao.agent.core;

import cn.agentao.agent.model.ModelClient;
import cn.agentao.agent.model.ModelException;
import cn.agentao.agent.model.ModelRequest;
import cn.agentao.agent.model.ModelResponse;
import cn.agentao.agent.util.Cancellation;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/** Keeps a session's model history within the context window by summarising older turns. */
final class Compaction {
    private static final Logger log = LoggerFactory.getLogger(Compaction.class);
    /** Compact when the estimated history passes this share of the model's context window. */
    static final double COMPACT_AT = 0.8;

    void compactIfNeeded(Session session, TurnModel turn, Cancellation cancel) {
        if (session.conversation().estimateTokens() > turn.contextWindow() * COMPACT_AT) compact(session, turn.client(), cancel);
    }

    /**
     * Replaces the turns before the latest user message by a model-written summary. Returns false when there
     * is nothing older to summarise or the summary failed (the history is then left as it was).
     */
    boolean compact(Session session, ModelClient model, Cancellation cancel) {
        List<ChatMessage> history = session.conversation().snapshot();
        int lastUser = -1;
        for (int i = history.size() - 1; i >= 0; i--) if (history.get(i) instanceof UserMessage) { lastUser = i; break; }
        if (lastUser <= 0) return false;
        List<ChatMessage> older = history.subList(0, lastUser);
        List<ChatMessage> request = new ArrayList<>();
        request.add(SystemMessage.from("Summarise the conversation below for your own later use: the user's goals, "
                + "decisions, files touched, commands run and their outcomes, and what is still open. Be complete but brief."));
        request.addAll(older);
        request.add(UserMessage.from("Write the summary now."));
        CompactionReport report = new CompactionReport(session);
        try {
            ModelResponse r = model.stream(new ModelRequest(request), report, cancel);
            String summary = r.message().text();
            if (summary == null || summary.isBlank()) {
                report.failed("the model wrote no summary");
                return false;
            }
            report.completed(summary);
            List<ChatMessage> replacement = new ArrayList<>();
            replacement.add(UserMessage.from("Summary of the earlier conversation:\n\n" + summary));
            replacement.add(AiMessage.from("Understood; I will continue from this summary."));
            replacement.addAll(history.subList(lastUser, history.size()));
            session.conversation().replace(replacement);
            SessionRecords.compaction(session, replacement);
            return true;
        } catch (ModelException e) {
            log.warn("compaction failed: {}", e.kind());
            if (e.kind() == ModelException.Kind.CANCELLED) report.cancelled(); else report.failed(e.userMessage());
            return false;
        }
    }
}
