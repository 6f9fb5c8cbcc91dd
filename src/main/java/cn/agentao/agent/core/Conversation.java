package cn.agentao.agent.core;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;

import java.util.ArrayList;
import java.util.List;

/** The model-facing history of a session (without the system prompt), and a rough token estimate of it. */
public final class Conversation {
    private final List<ChatMessage> messages = new ArrayList<>();

    public synchronized void add(ChatMessage m) { messages.add(m); }

    public synchronized List<ChatMessage> snapshot() { return List.copyOf(messages); }

    public synchronized int size() { return messages.size(); }

    public synchronized void replace(List<ChatMessage> replacement) {
        messages.clear();
        messages.addAll(replacement);
    }

    /** About four characters a token: good enough to decide when to compact. */
    public synchronized long estimateTokens() {
        long chars = 0;
        for (ChatMessage m : messages) chars += length(m);
        return chars / 4 + messages.size() * 4L;
    }

    static long length(ChatMessage m) {
        return switch (m) {
            case UserMessage u -> u.hasSingleText() ? u.singleText().length() : u.contents().size() * 1000L;
            case AiMessage a -> (a.text() == null ? 0 : a.text().length())
                    + (a.hasToolExecutionRequests() ? a.toolExecutionRequests().stream().mapToLong(t -> t.arguments() == null ? 0 : t.arguments().length() + 20).sum() : 0);
            case ToolExecutionResultMessage t -> t.text() == null ? 0 : t.text().length();
            case SystemMessage s -> s.text().length();
            default -> 100;
        };
    }
}
