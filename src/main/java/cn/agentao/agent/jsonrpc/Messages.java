package cn.agentao.agent.jsonrpc;

import cn.agentao.agent.util.JsonWriter;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;

/**
 * Outgoing JSON-RPC envelopes, written straight to the generator (no intermediate tree, no mapper); the payload
 * inside is written by {@link JsonWriter}. Absent fields are left out, except the {@code id} and {@code result} of
 * an answer, which are always written ({@code "id": null} for a parse error).
 */
final class Messages {
    private Messages() {}

    record Request(String jsonrpc, long id, String method, Object params) implements JsonWriter.Writable {
        Request(long id, String method, Object params) { this("2.0", id, method, params); }

        @Override
        public void writeJson(JsonGenerator g) throws IOException {
            g.writeStartObject();
            JsonWriter.stringField(g, "jsonrpc", jsonrpc);
            g.writeNumberField("id", id);
            JsonWriter.stringField(g, "method", method);
            payload(g, "params", params);
            g.writeEndObject();
        }
    }

    record Notification(String jsonrpc, String method, Object params) implements JsonWriter.Writable {
        Notification(String method, Object params) { this("2.0", method, params); }

        @Override
        public void writeJson(JsonGenerator g) throws IOException {
            g.writeStartObject();
            JsonWriter.stringField(g, "jsonrpc", jsonrpc);
            JsonWriter.stringField(g, "method", method);
            payload(g, "params", params);
            g.writeEndObject();
        }
    }

    record Result(String jsonrpc, JsonNode id, Object result) implements JsonWriter.Writable {
        Result(JsonNode id, Object result) { this("2.0", id, result); }

        @Override
        public void writeJson(JsonGenerator g) throws IOException {
            answerHead(g, jsonrpc, id);
            g.writeFieldName("result");
            JsonWriter.write(g, result);
            g.writeEndObject();
        }
    }

    record Error(String jsonrpc, JsonNode id, ErrorBody error) implements JsonWriter.Writable {
        Error(JsonNode id, int code, String message, JsonNode data) { this("2.0", id, new ErrorBody(code, message, data)); }

        @Override
        public void writeJson(JsonGenerator g) throws IOException {
            answerHead(g, jsonrpc, id);
            if (error != null) {
                g.writeFieldName("error");
                error.writeJson(g);
            }
            g.writeEndObject();
        }
    }

    record ErrorBody(int code, String message, JsonNode data) implements JsonWriter.Writable {
        @Override
        public void writeJson(JsonGenerator g) throws IOException {
            g.writeStartObject();
            g.writeNumberField("code", code);
            JsonWriter.stringField(g, "message", message);
            payload(g, "data", data);
            g.writeEndObject();
        }
    }

    /** An answer's opening: its object, {@code jsonrpc}, and the {@code id}, written even when null. */
    private static void answerHead(JsonGenerator g, String jsonrpc, JsonNode id) throws IOException {
        g.writeStartObject();
        JsonWriter.stringField(g, "jsonrpc", jsonrpc);
        g.writeFieldName("id");
        JsonWriter.write(g, id);
    }

    /** A field whose value may be absent: left out when null, as the mapper's NON_NULL inclusion did. */
    private static void payload(JsonGenerator g, String name, Object value) throws IOException {
        if (value == null) return;
        g.writeFieldName(name);
        JsonWriter.write(g, value);
    }
}
