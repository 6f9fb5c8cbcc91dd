package cn.agentao.agent.door.terminal;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code @path} in a prompt: each existing text file is attached as an embedded resource after the typed text. */
final class Mentions {
    static final long MAX_BYTES = 256 * 1024;
    private static final Pattern MENTION = Pattern.compile("(?<![\\w@])@([^\\s@]+)");

    private Mentions() {}

    static List<ContentBlock> attach(String text, Path cwd, Consumer<String> warn) {
        List<ContentBlock> blocks = new ArrayList<>();
        blocks.add(ContentBlock.text(text));
        Set<Path> seen = new LinkedHashSet<>();
        Matcher m = MENTION.matcher(text);
        while (m.find()) {
            String name = m.group(1).replaceAll("[.,;:!?)]+$", "");
            Path file;
            try {
                file = cwd.resolve(name).normalize();
            } catch (InvalidPathException e) {
                continue;
            }
            if (!Files.isRegularFile(file) || !seen.add(file)) continue;
            try {
                if (Files.size(file) > MAX_BYTES) {
                    warn.accept("@" + name + " is larger than " + (MAX_BYTES / 1024) + " KiB and was not attached");
                    continue;
                }
                String content = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file))).toString();
                ObjectNode resource = Json.object().put("uri", file.toUri().toString()).put("mimeType", "text/plain").put("text", content);
                blocks.add(new ContentBlock.Resource(resource, null, null));
            } catch (CharacterCodingException e) {
                warn.accept("@" + name + " is not a text file and was not attached");
            } catch (IOException e) {
                warn.accept("@" + name + " cannot be read: " + e.getMessage());
            }
        }
        return blocks;
    }
}
