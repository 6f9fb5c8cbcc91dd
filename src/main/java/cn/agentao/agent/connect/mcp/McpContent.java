package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.modelcontextprotocol.spec.McpSchema;

import java.util.Map;

/**
 * MCP content (of tool results and prompt messages) as ACP content blocks for display, and as text for the
 * model. Text stays text; images, audio and binary resources are described to the model (it reads text) and
 * shown as themselves to the user; links and embedded text resources keep their URI.
 */
final class McpContent {
    private McpContent() {}

    static ContentBlock toBlock(McpSchema.Content content) {
        return switch (content) {
            case McpSchema.TextContent t -> new ContentBlock.Text(t.text(), annotations(t.annotations()), meta(t.meta()));
            case McpSchema.ImageContent i -> new ContentBlock.Image(i.data(), i.mimeType(), null,
                    annotations(i.annotations()), meta(i.meta()));
            case McpSchema.AudioContent a -> new ContentBlock.Audio(a.data(), a.mimeType(), annotations(a.annotations()), meta(a.meta()));
            case McpSchema.ResourceLink l -> new ContentBlock.ResourceLink(l.uri(), l.name(), l.title(), l.description(),
                    l.mimeType(), l.size(), annotations(l.annotations()), meta(l.meta()));
            case McpSchema.EmbeddedResource r -> new ContentBlock.Resource(resource(r.resource()),
                    annotations(r.annotations()), meta(r.meta()));
            default -> ContentBlock.text(unknown(content));
        };
    }

    static String toText(McpSchema.Content content) {
        return switch (content) {
            case McpSchema.TextContent t -> t.text();
            case McpSchema.ImageContent i -> "[image " + i.mimeType() + ", " + decodedSize(i.data()) + " bytes, shown to the user]";
            case McpSchema.AudioContent a -> "[audio " + a.mimeType() + ", " + decodedSize(a.data()) + " bytes, given to the user]";
            case McpSchema.ResourceLink l -> "[resource link: " + (l.title() != null ? l.title() : l.name()) + " <" + l.uri() + ">"
                    + (l.mimeType() != null ? " " + l.mimeType() : "")
                    + (l.description() != null && !l.description().isBlank() ? " — " + l.description() : "") + "]";
            case McpSchema.EmbeddedResource r -> switch (r.resource()) {
                case McpSchema.TextResourceContents t -> "[resource <" + t.uri() + ">" + (t.mimeType() != null ? " " + t.mimeType() : "")
                        + "]\n" + t.text();
                case McpSchema.BlobResourceContents b -> "[binary resource <" + b.uri() + ">"
                        + (b.mimeType() != null ? " " + b.mimeType() : "") + ", " + decodedSize(b.blob()) + " bytes]";
                default -> "[resource <" + r.resource().uri() + ">]";
            };
            default -> unknown(content);
        };
    }

    private static ObjectNode resource(McpSchema.ResourceContents contents) {
        ObjectNode o = Json.object().put("uri", contents.uri());
        if (contents.mimeType() != null) o.put("mimeType", contents.mimeType());
        switch (contents) {
            case McpSchema.TextResourceContents t -> o.put("text", t.text());
            case McpSchema.BlobResourceContents b -> o.put("blob", b.blob());
            default -> { }
        }
        return o;
    }

    /** Content of a kind newer than this code: its JSON, so nothing is silently lost. */
    private static String unknown(McpSchema.Content content) {
        return Json.mapper().valueToTree(content).toString();
    }

    private static JsonNode annotations(McpSchema.Annotations a) {
        return a == null ? null : Json.mapper().valueToTree(a);
    }

    private static ObjectNode meta(Map<String, Object> meta) {
        return meta == null || meta.isEmpty() ? null : Json.mapper().valueToTree(meta);
    }

    private static long decodedSize(String base64) {
        if (base64 == null) return 0;
        int padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
        return Math.max(0, base64.length() * 3L / 4 - padding);
    }
}
