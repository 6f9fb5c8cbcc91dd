package cn.agentao.agent.door.acp;

import cn.agentao.agent.jsonrpc.JsonRpcException;
import cn.agentao.agent.core.content.ContentBlock;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/** Validates the {@code prompt} of session/prompt: the block types we advertise, each well formed. */
final class PromptParser {
    static final int MAX_IMAGES = 16;
    static final long MAX_IMAGE_BYTES = 20L * 1024 * 1024;

    private PromptParser() {}

    static List<ContentBlock> parse(JsonNode array) throws JsonRpcException {
        if (array.isEmpty()) throw JsonRpcException.invalidParams("prompt must not be empty");
        List<ContentBlock> blocks = new ArrayList<>();
        int images = 0;
        for (int i = 0; i < array.size(); i++) {
            String at = "prompt[" + i + "]";
            JsonNode e = array.get(i);
            if (!e.isObject()) throw JsonRpcException.invalidParams(at + " must be an object");
            Params p = Params.nested(e, at);
            String type = p.requireString("type");
            switch (type) {
                case "text" -> blocks.add(new ContentBlock.Text(p.requireString("text"), null, null));
                case "resource_link" -> {
                    String uri = p.requireNonEmptyString("uri");
                    String name = p.requireString("name");
                    blocks.add(new ContentBlock.ResourceLink(uri, name, p.optionalString("title"),
                            p.optionalString("description"), p.optionalString("mimeType"), null, null, null));
                }
                case "resource" -> {
                    JsonNode r = p.optionalObject("resource");
                    if (r == null) throw JsonRpcException.invalidParams(at + ".resource is required");
                    Params rp = Params.nested(r, at + ".resource");
                    rp.requireNonEmptyString("uri");
                    if (!rp.has("text") && !rp.has("blob")) {
                        throw JsonRpcException.invalidParams(at + ".resource needs \"text\" or \"blob\"");
                    }
                    if (rp.has("text")) rp.requireString("text");
                    else rp.requireString("blob");
                    blocks.add(new ContentBlock.Resource(r.deepCopy(), null, null));
                }
                case "image" -> {
                    if (++images > MAX_IMAGES) throw JsonRpcException.invalidParams("prompt has more than " + MAX_IMAGES + " images");
                    String mime = p.requireString("mimeType");
                    if (!mime.startsWith("image/")) throw JsonRpcException.invalidParams(at + ".mimeType must be image/* (got \"" + mime + "\")");
                    String data = p.requireNonEmptyString("data"); // an empty image fails later, in the model client
                    if ((long) data.length() * 3 / 4 > MAX_IMAGE_BYTES) {
                        throw JsonRpcException.invalidParams(at + ".data is larger than " + (MAX_IMAGE_BYTES >> 20) + " MiB");
                    }
                    try {
                        Base64.getDecoder().decode(data);
                    } catch (IllegalArgumentException ex) {
                        throw JsonRpcException.invalidParams(at + ".data is not valid base64");
                    }
                    blocks.add(new ContentBlock.Image(data, mime, p.optionalString("uri"), null, null));
                }
                case "audio" -> throw JsonRpcException.invalidParams(at + ": audio content is not supported (promptCapabilities.audio is false)");
                default -> throw JsonRpcException.invalidParams(at + ".type \"" + type + "\" is not a supported content type");
            }
        }
        return blocks;
    }
}
