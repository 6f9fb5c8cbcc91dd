package cn.agentao.agent.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import cn.agentao.agent.core.tool.ToolSchemas;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.AudioContent;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.SuccessfulHttpResponse;
import dev.langchain4j.http.client.sse.ServerSentEventListener;
import dev.langchain4j.http.client.sse.ServerSentEventParser;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link OpenAiRequest} sends what LangChain4j's OpenAI model would have sent for the same call: URL, headers and
 * the body as JSON, compared on conversations with every message kind, tool schemas, options and odd text.
 */
class OpenAiRequestTest {
    private static final ResolvedProvider PROVIDER = new ResolvedProvider("openai", ProviderKind.OPENAI_COMPATIBLE,
            "http://127.0.0.1:9/v1/", "sk-test-0123", "OPENAI_API_KEY (from the environment)");

    @Test
    void aPlainQuestionIsTheSameRequest() {
        assertSame("fake-model", ModelOptions.defaults(), new ModelRequest(List.of(SystemMessage.from("You are terse."),
                UserMessage.from("hi"))));
    }

    @Test
    void optionsAndReasoningAreTheSame() {
        List<ChatMessage> ask = List.of(SystemMessage.from("s"), UserMessage.from("hi"));
        ModelOptions options = ModelOptions.defaults().withTemperature(0.3).withMaxTokens(1234);
        assertSame("gpt-4o", options, new ModelRequest(ask, List.of(), null));
        assertSame("gpt-5-mini", options, new ModelRequest(ask, List.of(), "high")); // max_completion_tokens
        assertSame("o3", ModelOptions.defaults().withMaxTokens(7), new ModelRequest(ask, List.of(), "low"));
    }

    @Test
    void toolSchemasAreTheSame() {
        List<ToolSpecification> tools = List.of(
                tool("read_file", "Reads a file.", """
                        {"type":"object","properties":{"path":{"type":"string","description":"where"},
                         "offset":{"type":"integer","minimum":0},"limit":{"type":"number"},
                         "mode":{"type":"string","enum":["a","b"]},"all":{"type":"boolean"},
                         "edits":{"type":"array","items":{"type":"object","properties":{"old":{"type":"string"},
                           "new":{"type":"string"}},"required":["old","new"],"additionalProperties":false}},
                         "tags":{"type":"array","items":{"type":"string"}}},
                         "required":["path"]}"""),
                tool("nothing", null, "{}"),
                ToolSpecification.builder().name("no_parameters").description("none at all").build());
        assertSame("fake-model", ModelOptions.defaults(), new ModelRequest(List.of(UserMessage.from("go")), tools, null));
    }

    @Test
    void aWholeConversationIsTheSame() {
        List<ChatMessage> messages = new ArrayList<>();
        messages.add(SystemMessage.from("System \u00e9\u4e2d\ud83d\ude00 \"quoted\" \\ back\nslash\t\u0001"));
        messages.add(UserMessage.from("first"));
        messages.add(AiMessage.from("plain answer"));
        messages.add(UserMessage.from(TextContent.from("look"), ImageContent.from("aGVsbG8=", "image/png"),
                ImageContent.from("https://example.com/a.png", ImageContent.DetailLevel.HIGH)));
        messages.add(UserMessage.from("named", List.of(TextContent.from("hello"))));
        messages.add(AiMessage.from("calling", List.of(
                ToolExecutionRequest.builder().id("call_1").name("read_file").arguments("{\"path\":\"a\"}").build(),
                ToolExecutionRequest.builder().id("call_2").name("glob").arguments(" ").build())));
        messages.add(ToolExecutionResultMessage.from("call_1", "read_file", "contents"));
        messages.add(ToolExecutionResultMessage.from("call_2", "glob", ""));
        messages.add(AiMessage.from(List.of(ToolExecutionRequest.builder().id("call_3").name("x").arguments("{}").build())));
        messages.add(ToolExecutionResultMessage.from("call_3", "x", "done"));
        messages.add(AiMessage.from(List.of(ToolExecutionRequest.builder().name("legacy").arguments("{\"a\":1}").build())));
        messages.add(ToolExecutionResultMessage.from(null, "legacy", "old style"));
        messages.add(UserMessage.from("last"));
        assertSame("fake-model", ModelOptions.defaults(), new ModelRequest(messages, List.of(), null));
    }

    @Test
    void whatItDoesNotCoverIsLeftToLangChain4j() {
        ModelRequest audio = new ModelRequest(List.of(UserMessage.from(TextContent.from("listen"),
                AudioContent.from("aGVsbG8=", "audio/wav"))));
        assertNull(OpenAiRequest.of(PROVIDER, "fake-model", ModelOptions.defaults(), audio));
        assertNotNull(OpenAiRequest.of(PROVIDER, "fake-model", ModelOptions.defaults(), new ModelRequest(List.of(UserMessage.from("hi")))));
    }

    private static JsonNode parse(String json) {
        try {
            return Json.mapper().readTree(json);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    private static ToolSpecification tool(String name, String description, String schema) {
        return ToolSpecification.builder().name(name).description(description)
                .parameters(ToolSchemas.objectSchema(parse(schema))).build();
    }

    private static void assertSame(String model, ModelOptions options, ModelRequest request) {
        HttpRequest expected = langChain4jRequest(model, options, request);
        HttpRequest actual = OpenAiRequest.of(PROVIDER, model, options, request);
        assertNotNull(actual);
        assertEquals(expected.method(), actual.method());
        assertEquals(expected.url(), actual.url());
        assertEquals(expected.headers(), actual.headers());
        JsonNode want = parse(expected.body());
        JsonNode got = parse(actual.body());
        assertEquals(want, got, () -> "LangChain4j: " + want.toPrettyString() + "\nours: " + got.toPrettyString());
    }

    /** What LangChain4j's streaming model, built as the agent builds it, hands its HTTP client. */
    private static HttpRequest langChain4jRequest(String model, ModelOptions options, ModelRequest request) {
        HttpRequest[] sent = new HttpRequest[1];
        HttpClient capture = new HttpClient() {
            @Override
            public SuccessfulHttpResponse execute(HttpRequest r) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void execute(HttpRequest r, ServerSentEventParser parser, ServerSentEventListener listener) {
                sent[0] = r;
            }
        };
        HttpClientBuilder builder = new HttpClientBuilder() {
            @Override public Duration connectTimeout() { return null; }
            @Override public HttpClientBuilder connectTimeout(Duration timeout) { return this; }
            @Override public Duration readTimeout() { return null; }
            @Override public HttpClientBuilder readTimeout(Duration timeout) { return this; }
            @Override public HttpClient build() { return capture; }
        };
        ChatRequest chat = ChatRequest.builder().messages(request.messages())
                .toolSpecifications(request.tools().isEmpty() ? null : request.tools()).build();
        new StreamingModelFactory(PROVIDER, model, options).create(builder, request.reasoningEffort()).chat(chat,
                new StreamingChatResponseHandler() {
                    @Override public void onPartialResponse(String partialResponse) {}
                    @Override public void onCompleteResponse(ChatResponse completeResponse) {}
                    @Override public void onError(Throwable error) { throw new AssertionError(error); }
                });
        return sent[0];
    }
}
