package cn.agentao.agent.jsonrpc;

import cn.agentao.agent.util.Json;
import cn.agentao.agent.util.JsonWriter;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The JSON-RPC envelopes on the wire: member order, and which absent members are left out and which are kept. */
class MessagesTest {

    private static String line(Object message) throws Exception {
        return new String(JsonWriter.line(message), StandardCharsets.UTF_8);
    }

    @Test
    void envelopes() throws Exception {
        assertEquals("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"fs/read_text_file\",\"params\":{\"path\":\"/a\"}}\n",
                line(new Messages.Request(7, "fs/read_text_file", Json.object().put("path", "/a"))));
        assertEquals("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"x\"}\n", line(new Messages.Request(8, "x", null)), "no params: left out");
        assertEquals("{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{}}\n",
                line(new Messages.Notification("session/update", Json.object())));
        assertEquals("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{\"ok\":true}}\n",
                line(new Messages.Result(TextNode.valueOf("a"), Json.object().put("ok", true))));
        assertEquals("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}\n", line(new Messages.Result(IntNode.valueOf(1), null)),
                "a null result is written");
        assertEquals("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error: x\"}}\n",
                line(new Messages.Error(NullNode.instance, -32700, "Parse error: x", null)), "id null is kept, absent data left out");
        assertEquals("{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32602,\"message\":\"m\",\"data\":{\"field\":\"cwd\"}}}\n",
                line(new Messages.Error(IntNode.valueOf(2), -32602, "m", Json.object().put("field", "cwd"))));
    }
}
