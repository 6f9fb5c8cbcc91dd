package cn.agentao.agent.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The lean Anthropic Messages stream reader on the events Anthropic sends, split anywhere, and on odd ones. */
class AnthropicStreamReaderTest {
    private static ModelResponse read(String sse, int bytesPerRead, RecordingListener listener) throws ModelException {
        return StreamReading.read(AnthropicStreamReader::read, ProviderKind.ANTHROPIC, sse, bytesPerRead, listener);
    }

    private static String event(String name, String data) {
        return "event: " + name + "\ndata: " + data + "\n\n";
    }

    private static String start(int index, String block) {
        return event("content_block_start", "{\"type\":\"content_block_start\",\"index\":" + index + ",\"content_block\":" + block + "}");
    }

    private static String delta(int index, String delta) {
        return event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":" + index + ",\"delta\":" + delta + "}");
    }

    private static String stop(int index) {
        return event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":" + index + "}");
    }

    private static String messageStart(String usage) {
        return event("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
                + "\"role\":\"assistant\",\"content\":[],\"model\":\"claude-test\",\"stop_reason\":null,\"stop_sequence\":null,"
                + "\"usage\":" + usage + "}}");
    }

    private static String messageEnd(String stopReason, String usage) {
        return event("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"" + stopReason
                + "\",\"stop_sequence\":null},\"usage\":" + usage + "}")
                + event("message_stop", "{\"type\":\"message_stop\"}");
    }

    private static String text(String s) {
        return "{\"type\":\"text_delta\",\"text\":\"" + s + "\"}";
    }

    private static String answer(String stopReason, String... middle) {
        return messageStart("{\"input_tokens\":5,\"output_tokens\":1}") + String.join("", middle)
                + messageEnd(stopReason, "{\"output_tokens\":9}");
    }

    @Test
    void anySplitOfTheBytesGivesTheSameAnswer() throws Exception {
        String sse = messageStart("{\"input_tokens\":25,\"cache_creation_input_tokens\":10,\"cache_read_input_tokens\":100,\"output_tokens\":1}")
                .replace("\n", "\r\n")
                + event("ping", "{\"type\": \"ping\"}")
                + ": a comment\n\n"
                + start(0, "{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}")
                + delta(0, "{\"type\":\"thinking_delta\",\"thinking\":\"Let me \"}")
                + delta(0, "{\"type\":\"thinking_delta\",\"thinking\":\"look.\"}")
                + delta(0, "{\"type\":\"signature_delta\",\"signature\":\"EqQBCgIYAhIM\"}")
                + stop(0)
                + start(1, "{\"type\":\"text\",\"text\":\"\"}")
                + delta(1, text("Grüß "))
                + delta(1, text("日本 \\u00e9\\n"))
                + stop(1)
                + start(2, "{\"type\":\"tool_use\",\"id\":\"toolu_a\",\"name\":\"read_file\",\"input\":{}}")
                + delta(2, "{\"type\":\"input_json_delta\",\"partial_json\":\"\"}")
                + delta(2, "{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"pa\"}")
                + delta(2, "{\"type\":\"input_json_delta\",\"partial_json\":\"th\\\": \\\"a.md\"}")
                + delta(2, "{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"}\"}")
                + stop(2)
                + start(3, "{\"type\":\"tool_use\",\"id\":\"toolu_b\",\"name\":\"list_files\",\"input\":{}}")
                + stop(3)
                + messageEnd("tool_use", "{\"output_tokens\":42}");
        for (int split : new int[]{1, 2, 3, 7, 64, 100_000}) {
            RecordingListener listener = new RecordingListener();
            ModelResponse r = read(sse, split, listener);
            assertEquals(List.of("reasoning:Let me ", "reasoning:look.", "text:Grüß ", "text:日本 é\n",
                    "tool:0:toolu_a:read_file", "tool:1:toolu_b:list_files"), listener.events(), "split " + split);
            assertEquals("Let me look.", r.message().thinking());
            assertEquals("Grüß 日本 é\n", r.message().text());
            List<ToolExecutionRequest> calls = r.message().toolExecutionRequests();
            assertEquals("toolu_a", calls.get(0).id());
            assertEquals("read_file", calls.get(0).name());
            assertEquals("{\"path\": \"a.md\"}", calls.get(0).arguments());
            assertEquals("{}", calls.get(1).arguments(), "a tool use without input pieces has empty input");
            assertEquals(FinishKind.TOOL_CALLS, r.finish());
            // input counts the cache writes and reads too, as the prompt's size
            assertEquals(new TokenCount(135, 42, 177, 100), r.usage());
            assertEquals("EqQBCgIYAhIM", r.message().attribute("thinking_signature", String.class),
                    "the signature goes back with the thinking in the next request");
        }
    }

    @Test
    void textBlocksAreJoinedWithALineBreakAndRedactedThinkingIsKept() throws Exception {
        String sse = answer("end_turn",
                start(0, "{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy\"}"), stop(0),
                start(1, "{\"type\":\"text\",\"text\":\"First\"}"), stop(1),
                start(2, "{\"type\":\"text\",\"text\":\"\"}"), delta(2, text("Second")), stop(2));
        RecordingListener listener = new RecordingListener();

        ModelResponse r = read(sse, 5, listener);

        assertEquals(List.of("First", "Second"), listener.texts());
        assertEquals("First\nSecond", r.message().text());
        assertNull(r.message().thinking());
        assertEquals(List.of("EmwKAhgBEgy"), r.message().attribute("redacted_thinking", List.class));
        assertEquals(FinishKind.STOP, r.finish());
        assertEquals(new TokenCount(5, 9, 14, 0), r.usage());
    }

    @Test
    void stopReasonsAreMapped() throws Exception {
        Map<String, FinishKind> expected = Map.of("end_turn", FinishKind.STOP, "stop_sequence", FinishKind.STOP,
                "max_tokens", FinishKind.LENGTH, "model_context_window_exceeded", FinishKind.LENGTH,
                "refusal", FinishKind.CONTENT_FILTER, "pause_turn", FinishKind.OTHER);
        for (var e : expected.entrySet()) {
            String sse = answer(e.getKey(), start(0, "{\"type\":\"text\",\"text\":\"\"}"), delta(0, text("x")), stop(0));
            assertEquals(e.getValue(), read(sse, 1000, new RecordingListener()).finish(), e.getKey());
        }
    }

    @Test
    void fieldsInAnyOrderAndEventsItDoesNotKnowAreFine() throws Exception {
        String sse = answer("end_turn",
                event("content_block_start", "{\"content_block\":{\"text\":\"\",\"type\":\"text\"},\"index\":0,\"type\":\"content_block_start\"}"),
                event("content_block_delta", "{\"delta\":{\"text\":\"a\",\"type\":\"text_delta\"},\"index\":0,\"type\":\"content_block_delta\"}"),
                delta(0, "{\"type\":\"citations_delta\",\"citation\":{\"type\":\"char_location\",\"cited_text\":\"q\"}}"),
                stop(0),
                start(1, "{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_1\",\"name\":\"web_search\",\"input\":{}}"),
                delta(1, "{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"query\\\":\\\"x\\\"}\"}"),
                stop(1),
                delta(7, text("for a block that never started")),
                event("something_new", "{\"type\":\"something_new\",\"data\":[1,2,{\"x\":null}]}"),
                "data: [DONE]\n\n");
        RecordingListener listener = new RecordingListener();

        ModelResponse r = read(sse, 3, listener);

        assertEquals(List.of("text:a"), listener.events());
        assertEquals("a", r.message().text());
        assertTrue(r.message().toolExecutionRequests().isEmpty(), "the provider's own tools are not the agent's");
    }

    @Test
    void anErrorEventFailsTheCallWithTheProvidersErrorType() {
        String sse = messageStart("{\"input_tokens\":5}") + start(0, "{\"type\":\"text\",\"text\":\"\"}") + delta(0, text("Hal"))
                + event("error", "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}");
        RecordingListener listener = new RecordingListener();

        ModelException e = assertThrows(ModelException.class, () -> read(sse, 4, listener));

        assertEquals(ModelException.Kind.SERVER, e.kind());
        assertTrue(e.retryable());
        assertTrue(e.getMessage().contains("Overloaded"), e.getMessage());
        assertEquals(List.of("Hal"), listener.texts());

        ModelException limited = assertThrows(ModelException.class, () -> read(messageStart("{}")
                + event("error", "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}"), 9,
                new RecordingListener()));
        assertEquals(ModelException.Kind.RATE_LIMITED, limited.kind());

        ModelException plain = assertThrows(ModelException.class,
                () -> read("event: error\ndata: upstream exploded\n\n", 3, new RecordingListener()));
        assertTrue(plain.getMessage().contains("upstream exploded"), plain.getMessage());
    }

    @Test
    void aBodyEndingBeforeMessageStopIsALostConnectionNotAnAnswer() {
        String sse = messageStart("{\"input_tokens\":5}") + start(0, "{\"type\":\"text\",\"text\":\"\"}") + delta(0, text("half"))
                + event("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}");
        RecordingListener listener = new RecordingListener();

        ModelException e = assertThrows(ModelException.class, () -> read(sse, 6, listener));

        assertEquals(ModelException.Kind.CONNECTION, e.kind());
        assertEquals(List.of("half"), listener.texts());
    }
}
