package cn.agentao.agent.model;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The lean OpenAI stream reader on awkward but legal streams: any split of the bytes, CRLF, odd events. */
class OpenAiStreamReaderTest {
    private static ModelResponse read(String sse, int bytesPerRead, RecordingListener listener) throws ModelException {
        return StreamReading.read(OpenAiStreamReader::read, ProviderKind.OPENAI_COMPATIBLE, sse, bytesPerRead, listener);
    }

    private static String chunk(String delta) {
        return "data: {\"choices\":[{\"index\":0,\"delta\":" + delta + "}]}\n\n";
    }

    @Test
    void anySplitOfTheBytesGivesTheSameAnswer() throws Exception {
        String sse = ": keep-alive comment\r\n\r\n"
                + chunk("{\"role\":\"assistant\",\"content\":\"\"}").replace("\n", "\r\n")
                + chunk("{\"reasoning_content\":\"hm \"}")
                + chunk("{\"content\":\"Grüß \"}")
                + "event: message\nid: 7\n" + chunk("{\"content\":\"日本 \\u00e9\\n\"}")
                + chunk("{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"\"}}]}")
                + chunk("{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"arguments\":\"{\\\"path\\\":\"}}]}")
                + chunk("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"a\\\"}\"}}]}")
                + "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}],\"usage\":null}\n\n"
                + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":7}}\n\n"
                + "data: [DONE]\n\n";
        for (int split : new int[]{1, 2, 3, 7, 64, 100_000}) {
            RecordingListener listener = new RecordingListener();
            ModelResponse r = read(sse, split, listener);
            assertEquals(List.of("reasoning:hm ", "text:Grüß ", "text:日本 é\n", "tool:0:c1:read_file"), listener.events(), "split " + split);
            assertEquals("Grüß 日本 é\n", r.message().text());
            assertEquals("hm ", r.message().thinking());
            assertEquals("{\"path\":\"a\"}", r.message().toolExecutionRequests().get(0).arguments());
            assertEquals("c1", r.message().toolExecutionRequests().get(0).id());
            assertEquals(FinishKind.TOOL_CALLS, r.finish());
            assertEquals(new TokenCount(3, 4, 7), r.usage());
        }
    }

    @Test
    void anErrorEventMidStreamFailsTheCall() {
        String sse = chunk("{\"content\":\"a\"}") + "data: {\"error\":{\"type\":\"server_error\",\"code\":500,\"message\":\"boom\"}}\n\n";
        RecordingListener listener = new RecordingListener();
        ModelException e = assertThrows(ModelException.class, () -> read(sse, 5, listener));
        assertTrue(e.getMessage().contains("boom"), e.getMessage());
        assertEquals(List.of("a"), listener.texts());
    }

    @Test
    void anEventNamedErrorFailsTheCallWithItsData() {
        String sse = chunk("{\"content\":\"a\"}") + "event: error\ndata: {\"error\":{\"type\":\"rate_limit_exceeded\",\"message\":\"slow down\"}}\n\n";
        ModelException e = assertThrows(ModelException.class, () -> read(sse, 3, new RecordingListener()));
        assertEquals(ModelException.Kind.RATE_LIMITED, e.kind());
        ModelException plain = assertThrows(ModelException.class,
                () -> read("event: error\ndata: upstream exploded\n\n", 3, new RecordingListener()));
        assertTrue(plain.getMessage().contains("upstream exploded"), plain.getMessage());
    }

    @Test
    void aLastEventWithoutItsBlankLineStillCounts() throws Exception {
        ModelResponse r = read(chunk("{\"content\":\"x\"}") + "data: {\"choices\":[{\"delta\":{\"content\":\"y\"},\"finish_reason\":\"stop\"}]}", 4,
                new RecordingListener());
        assertEquals("xy", r.message().text());
        assertEquals(FinishKind.STOP, r.finish());
    }

    @Test
    void argumentsForACallWithoutANameFailTheCall() {
        String sse = chunk("{\"tool_calls\":[{\"index\":0,\"id\":\"\",\"function\":{\"name\":\"\",\"arguments\":\"{}\"}}]}") + "data: [DONE]\n\n";
        ModelException e = assertThrows(ModelException.class, () -> read(sse, 100, new RecordingListener()));
        assertTrue(e.getMessage().contains("name"), e.getMessage());
    }

    @Test
    void toolCallsWithoutAnIndexAreToldApartByTheirIds() throws Exception {
        String sse = chunk("{\"tool_calls\":[{\"id\":\"a\",\"function\":{\"name\":\"one\",\"arguments\":\"{}\"}}]}")
                + chunk("{\"tool_calls\":[{\"id\":\"b\",\"function\":{\"name\":\"two\",\"arguments\":\"{}\"}}]}") + "data: [DONE]\n\n";
        ModelResponse r = read(sse, 1000, new RecordingListener());
        assertEquals(List.of("one", "two"), r.message().toolExecutionRequests().stream().map(t -> t.name()).toList());
    }
}
