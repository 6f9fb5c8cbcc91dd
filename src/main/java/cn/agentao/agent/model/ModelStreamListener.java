package cn.agentao.agent.model;

/** Receives a model call's output as it streams. Called on the thread that called {@link ModelClient#stream}. */
public interface ModelStreamListener {

    ModelStreamListener IGNORE = new ModelStreamListener() {
        @Override
        public void onText(String delta) {}

        @Override
        public void onReasoning(String delta) {}
    };

    void onText(String delta);

    void onReasoning(String delta);

    /** The model began a tool call; its arguments arrive later, complete, in the {@link ModelResponse}. */
    default void onToolCallStarted(int index, String id, String name) {}
}
