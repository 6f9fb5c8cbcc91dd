package cn.agentao.agent.model;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.image.Image;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.http.client.HttpMethod;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.internal.JsonSchemaElementUtils;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * An OpenAI-compatible streaming chat request (URL, headers, JSON body), written with Jackson's streaming generator:
 * the same request LangChain4j's {@code OpenAiStreamingChatModel} sends for the options the agent sets
 * ({@code OpenAiRequestTest} compares the two), without its request objects and their first-use bean introspection,
 * which cost a fresh agent's first prompt ~30–70 ms before anything was sent. Anything this writer does not cover
 * (a user message with audio, video or a PDF, a tool result with an image, an unknown message kind) gives null: such
 * a call goes through LangChain4j as before.
 */
final class OpenAiRequest {
    private OpenAiRequest() {}

    /** The request, or null when it holds something only LangChain4j's request builder knows how to send. */
    static HttpRequest of(ResolvedProvider provider, String model, ModelOptions options, ModelRequest request) {
        for (ChatMessage m : request.messages()) {
            if (!supported(m)) return null;
        }
        return HttpRequest.builder()
                .method(HttpMethod.POST)
                .url(provider.baseUrl(), "chat/completions")
                .addHeader("Content-Type", "application/json")
                .addHeader("Authorization", "Bearer " + provider.apiKey())
                .addHeader("User-Agent", "langchain4j-openai")
                .body(body(model, options, request))
                .build();
    }

    private static boolean supported(ChatMessage m) {
        if (m instanceof SystemMessage || m instanceof AiMessage) return true;
        if (m instanceof ToolExecutionResultMessage r) return r.hasSingleText();
        if (!(m instanceof UserMessage u)) return false;
        for (Content c : u.contents()) {
            if (!(c instanceof TextContent || c instanceof ImageContent i && detail(i) != null)) return false;
        }
        return true;
    }

    /** As LangChain4j spells the levels it knows; null for one it refuses (the call then goes through it, and fails there). */
    private static String detail(ImageContent image) {
        if (image.detailLevel() == null) return "";
        return switch (image.detailLevel().name()) {
            case "LOW" -> "low";
            case "HIGH" -> "high";
            case "AUTO" -> "auto";
            default -> null;
        };
    }

    static String body(String model, ModelOptions options, ModelRequest request) {
        StringWriter out = new StringWriter(1024);
        try (JsonGenerator g = Json.FACTORY.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("model", model);
            g.writeArrayFieldStart("messages");
            for (ChatMessage m : request.messages()) message(g, m);
            g.writeEndArray();
            if (options.temperature() != null) g.writeNumberField("temperature", options.temperature());
            g.writeBooleanField("stream", true);
            g.writeObjectFieldStart("stream_options");
            g.writeBooleanField("include_usage", true);
            g.writeEndObject();
            if (options.maxTokens() != null) {
                g.writeNumberField(StreamingModelFactory.usesMaxCompletionTokens(model) ? "max_completion_tokens" : "max_tokens",
                        options.maxTokens());
            }
            if (!request.tools().isEmpty()) tools(g, request.tools());
            if (request.reasoningEffort() != null) g.writeStringField("reasoning_effort", request.reasoningEffort());
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
    }

    private static void message(JsonGenerator g, ChatMessage message) throws IOException {
        g.writeStartObject();
        if (message instanceof SystemMessage s) {
            g.writeStringField("role", "system");
            g.writeStringField("content", s.text());
        } else if (message instanceof UserMessage u) {
            g.writeStringField("role", "user");
            if (u.hasSingleText()) {
                g.writeStringField("content", u.singleText());
            } else {
                g.writeArrayFieldStart("content");
                for (Content c : u.contents()) content(g, c);
                g.writeEndArray();
            }
            if (u.name() != null) g.writeStringField("name", u.name());
        } else if (message instanceof AiMessage a) {
            assistant(g, a);
        } else {
            ToolExecutionResultMessage r = (ToolExecutionResultMessage) message; // the last kind supported() lets through
            if (r.id() == null) {
                g.writeStringField("role", "function");
                g.writeStringField("name", r.toolName());
            } else {
                g.writeStringField("role", "tool");
                g.writeStringField("tool_call_id", r.id());
            }
            g.writeStringField("content", r.text());
        }
        g.writeEndObject();
    }

    private static void content(JsonGenerator g, Content content) throws IOException {
        g.writeStartObject();
        if (content instanceof TextContent t) {
            g.writeStringField("type", "text");
            g.writeStringField("text", t.text());
        } else {
            ImageContent i = (ImageContent) content;
            g.writeStringField("type", "image_url");
            g.writeObjectFieldStart("image_url");
            Image image = i.image();
            g.writeStringField("url", image.url() != null ? image.url().toString()
                    : "data:" + image.mimeType() + ";base64," + image.base64Data());
            if (!detail(i).isEmpty()) g.writeStringField("detail", detail(i));
            g.writeEndObject();
        }
        g.writeEndObject();
    }

    /** Tool calls without an id are the legacy single {@code function_call}, as LangChain4j sends them. */
    private static void assistant(JsonGenerator g, AiMessage a) throws IOException {
        g.writeStringField("role", "assistant");
        if (!a.hasToolExecutionRequests()) {
            if (a.text() != null) g.writeStringField("content", a.text());
            return;
        }
        List<ToolExecutionRequest> calls = a.toolExecutionRequests();
        if (calls.get(0).id() == null) {
            g.writeObjectFieldStart("function_call");
            if (calls.get(0).name() != null) g.writeStringField("name", calls.get(0).name());
            if (calls.get(0).arguments() != null) g.writeStringField("arguments", calls.get(0).arguments());
            g.writeEndObject();
            return;
        }
        if (a.text() != null) g.writeStringField("content", a.text());
        g.writeArrayFieldStart("tool_calls");
        for (ToolExecutionRequest call : calls) {
            g.writeStartObject();
            if (call.id() != null) g.writeStringField("id", call.id());
            g.writeStringField("type", "function");
            g.writeObjectFieldStart("function");
            if (call.name() != null) g.writeStringField("name", call.name());
            g.writeStringField("arguments", call.arguments() == null || call.arguments().isBlank() ? "{}" : call.arguments());
            g.writeEndObject();
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static void tools(JsonGenerator g, List<ToolSpecification> tools) throws IOException {
        g.writeArrayFieldStart("tools");
        for (ToolSpecification t : tools) {
            g.writeStartObject();
            g.writeStringField("type", "function");
            g.writeObjectFieldStart("function");
            g.writeStringField("name", t.name());
            if (t.description() != null) g.writeStringField("description", t.description());
            g.writeFieldName("parameters");
            if (t.parameters() != null) {
                value(g, JsonSchemaElementUtils.toMap(t.parameters(), false));
            } else {
                g.writeStartObject();
                g.writeStringField("type", "object");
                g.writeObjectFieldStart("properties");
                g.writeEndObject();
                g.writeArrayFieldStart("required");
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndObject();
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    /** A schema map's value (maps, lists, strings, numbers, booleans, nulls), as Jackson would write it; plain {@code instanceof}
     *  tests, not a pattern switch, whose type-switch class the JVM would have to spin on first use. */
    private static void value(JsonGenerator g, Object v) throws IOException {
        if (v == null) {
            g.writeNull();
        } else if (v instanceof Map<?, ?> map) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                g.writeFieldName(String.valueOf(e.getKey()));
                value(g, e.getValue());
            }
            g.writeEndObject();
        } else if (v instanceof Collection<?> || v instanceof Object[]) {
            g.writeStartArray();
            for (Object item : v instanceof Object[] a ? Arrays.asList(a) : (Collection<?>) v) value(g, item);
            g.writeEndArray();
        } else if (v instanceof String s) {
            g.writeString(s);
        } else if (v instanceof Boolean b) {
            g.writeBoolean(b);
        } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            g.writeNumber(((Number) v).longValue());
        } else if (v instanceof BigDecimal d) {
            g.writeNumber(d);
        } else if (v instanceof BigInteger i) {
            g.writeNumber(i);
        } else if (v instanceof Float f) {
            g.writeNumber(f);
        } else if (v instanceof Number n) {
            g.writeNumber(n.doubleValue());
        } else {
            g.writeString(v.toString()); // an enum's or a value type's text, as Jackson writes them by default
        }
    }
}
