package cn.agentao.agent.core;

import cn.agentao.agent.childenv.Credentials;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.content.ToolCallContent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Replaces the session's known secret values (provider keys, credential variables from the environment and the
 * {@code .env} files) by {@code ***} in what a tool produced, before it reaches the model, the client or the
 * store: a {@code cat .env} or a file that holds the key shows the line, not the key.
 */
final class ToolOutputMask {
    private final Credentials credentials;

    ToolOutputMask(Credentials credentials) {
        this.credentials = credentials;
    }

    String text(String text) {
        return credentials.mask(text);
    }

    List<ToolCallContent> content(List<ToolCallContent> items) {
        if (items == null) return null;
        List<ToolCallContent> out = new ArrayList<>(items.size());
        for (ToolCallContent item : items) {
            out.add(switch (item) {
                case ToolCallContent.Content c when c.content() instanceof ContentBlock.Text t ->
                        new ToolCallContent.Content(new ContentBlock.Text(text(t.text()), t.annotations(), t.meta()), c.meta());
                case ToolCallContent.Diff d -> new ToolCallContent.Diff(d.path(), text(d.oldText()), text(d.newText()), d.meta());
                default -> item;
            });
        }
        return out;
    }

    /** A copy of {@code json} with every string masked (null stays null). */
    JsonNode json(JsonNode json) {
        if (json == null) return null;
        if (json.isTextual()) return TextNode.valueOf(text(json.textValue()));
        if (json.isArray()) {
            ArrayNode out = ((ArrayNode) json).arrayNode();
            json.forEach(e -> out.add(json(e)));
            return out;
        }
        if (json.isObject()) {
            ObjectNode out = ((ObjectNode) json).objectNode();
            for (Map.Entry<String, JsonNode> e : json.properties()) out.set(e.getKey(), json(e.getValue()));
            return out;
        }
        return json;
    }
}
