package cn.agentao.agent.testing;

/** One model API as the fake server speaks it. */
interface Wire {

    StreamEmitter streamer(SseOutput out, RecordedRequest request);

    /** The complete, non-streamed answer for {@code script}. */
    String complete(Script script, RecordedRequest request, int inputTokens);

    /** A realistic error body for {@code status}. */
    String errorBody(int status);

    static Wire of(RecordedRequest.Api api) {
        return switch (api) {
            case OPENAI -> new OpenAiWire();
            case ANTHROPIC -> new AnthropicWire();
            case OPENAI_RESPONSES -> new ResponsesWire();
        };
    }
}
