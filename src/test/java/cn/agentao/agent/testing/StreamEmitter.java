package cn.agentao.agent.testing;

import java.io.IOException;

/** Renders a reply's parts as one API's streaming events. */
interface StreamEmitter {

    void begin(int inputTokens) throws IOException;

    void text(String chunk) throws IOException;

    void reasoning(String chunk) throws IOException;

    void toolCallBegin(int index, String id, String name) throws IOException;

    void toolCallArguments(int index, String piece) throws IOException;

    /** Reports an error inside the stream; nothing follows it. */
    void error(String type, String message) throws IOException;

    /** {@code finishReason} in OpenAI's words; each wire translates. */
    void end(String finishReason, int inputTokens, int outputTokens, int cachedInputTokens) throws IOException;
}
