package cn.agentao.agent.door.terminal;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.util.ImageInfo;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code @path} in a prompt: each existing text file is attached as an embedded resource after the typed text, each
 * PNG, JPEG, GIF or WebP file (by its first bytes) as an image, within {@link ImageInfo#limits() the limits} models
 * accept. A prompt that is nothing but the absolute path of an image file, as a terminal pastes a file dragged onto it
 * (perhaps quoted, or with its spaces escaped), attaches that image.
 */
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
                if (image(file, "@" + name, blocks, warn)) continue;
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

    /**
     * The prompt for a line that is only the absolute path of an image file ({@code '/a b.png'}, {@code "/a b.png"}
     * or {@code /a\ b.png}): the path and the image; null when the line is anything else.
     */
    static List<ContentBlock> pastedImage(String line, Consumer<String> warn) {
        String s = line.strip();
        if (s.length() > 2 && (s.startsWith("'") && s.endsWith("'") || s.startsWith("\"") && s.endsWith("\""))) {
            s = s.substring(1, s.length() - 1);
        } else {
            s = s.replaceAll("\\\\(.)", "$1");
        }
        Path file;
        try {
            file = Path.of(s);
        } catch (InvalidPathException e) {
            return null;
        }
        if (!file.isAbsolute() || !Files.isRegularFile(file)) return null;
        List<ContentBlock> blocks = new ArrayList<>();
        blocks.add(ContentBlock.text(file.toString()));
        try {
            return image(file.normalize(), file.toString(), blocks, warn) ? blocks : null;
        } catch (IOException e) {
            warn.accept(file + " cannot be read: " + e.getMessage());
            return null;
        }
    }

    /**
     * Adds {@code file} to {@code blocks} as an image resource when it is one that models accept; true when it is an
     * image at all (attached, or refused with a warning for its size), false when it is no image.
     */
    private static boolean image(Path file, String shown, List<ContentBlock> blocks, Consumer<String> warn) throws IOException {
        ImageInfo info = ImageInfo.ofFile(file).orElse(null);
        if (info == null) return false;
        long size = Files.size(file);
        if (!info.fits(size)) {
            warn.accept(shown + " is " + info.describe(size) + ": larger than models accept (" + ImageInfo.limits()
                    + ") and was not attached");
            return true;
        }
        byte[] bytes = Files.readAllBytes(file);
        if (!info.fits(bytes.length)) {
            warn.accept(shown + " grew past " + (ImageInfo.MAX_BYTES >> 20) + " MB while read and was not attached");
            return true;
        }
        blocks.add(new ContentBlock.Resource(Json.object().put("uri", file.toUri().toString())
                .put("mimeType", info.mimeType()).put("blob", Base64.getEncoder().encodeToString(bytes)), null, null));
        return true;
    }
}
