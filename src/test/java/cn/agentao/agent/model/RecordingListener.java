package cn.agentao.agent.model;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Records what a {@link ModelStreamListener} heard, in order, as {@code text:…}, {@code reasoning:…}, {@code tool:i:id:name}. */
final class RecordingListener implements ModelStreamListener {
    private final List<String> events = new ArrayList<>();
    private final List<String> texts = new ArrayList<>();
    private final List<String> reasoning = new ArrayList<>();
    private Consumer<String> onFirstText = text -> {};

    /** Runs {@code action} when the first text delta arrives (on the streaming thread). */
    RecordingListener onFirstText(Consumer<String> action) {
        this.onFirstText = action;
        return this;
    }

    @Override
    public synchronized void onText(String delta) {
        if (texts.isEmpty()) {
            onFirstText.accept(delta);
        }
        texts.add(delta);
        events.add("text:" + delta);
    }

    @Override
    public synchronized void onReasoning(String delta) {
        reasoning.add(delta);
        events.add("reasoning:" + delta);
    }

    @Override
    public synchronized void onToolCallStarted(int index, String id, String name) {
        events.add("tool:" + index + ":" + id + ":" + name);
    }

    synchronized List<String> events() {
        return List.copyOf(events);
    }

    synchronized List<String> texts() {
        return List.copyOf(texts);
    }

    synchronized List<String> reasoning() {
        return List.copyOf(reasoning);
    }
}
