package cn.agentao.agent.model;

import cn.agentao.agent.util.ImageInfo;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Images in a request to a model that does not accept them: each becomes a sentence saying what it was ("an image of
 * W×H pixels, N bytes; this model does not accept images"), so the request stays valid and the model can tell the user.
 * The history keeps the images: a later turn with a model that accepts them sends them.
 */
final class ImageParts {
    private ImageParts() {}

    static ModelRequest asText(ModelRequest request) {
        if (request.messages().stream().noneMatch(ImageParts::hasImage)) return request;
        List<ChatMessage> messages = new ArrayList<>();
        for (ChatMessage m : request.messages()) {
            if (!hasImage(m)) {
                messages.add(m);
                continue;
            }
            List<Content> contents = new ArrayList<>();
            for (Content c : ((UserMessage) m).contents()) {
                contents.add(c instanceof ImageContent i ? TextContent.from("[" + describe(i) + "]") : c);
            }
            messages.add(((UserMessage) m).toBuilder().contents(contents).build());
        }
        return new ModelRequest(messages, request.tools(), request.reasoningEffort());
    }

    private static boolean hasImage(ChatMessage m) {
        return m instanceof UserMessage u && u.contents().stream().anyMatch(ImageContent.class::isInstance);
    }

    static String describe(ImageContent image) {
        String data = image.image().base64Data();
        if (data == null) return "An image at " + image.image().url() + "; this model does not accept images.";
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(data);
        } catch (IllegalArgumentException e) {
            bytes = new byte[0];
        }
        long size = bytes.length;
        String what = ImageInfo.of(bytes).map(i -> i.describe(size))
                .orElse("an image (" + image.image().mimeType() + "), " + size + " bytes");
        return Character.toUpperCase(what.charAt(0)) + what.substring(1) + "; this model does not accept images.";
    }
}
