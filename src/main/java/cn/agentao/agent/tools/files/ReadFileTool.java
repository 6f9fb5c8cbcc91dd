package cn.agentao.agent.tools.files;

import cn.agentao.agent.core.tool.BinaryFileException;
import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolArgs;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.core.tool.ToolSignal;
import cn.agentao.agent.tools.ToolPaths;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.util.ImageInfo;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolKind;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;

/**
 * {@code read_file}: a text file, or a range of its lines, numbered like {@code cat -n}. At most
 * {@value #MAX_LINES} lines and {@value #MAX_CHARS} characters per call, long lines cut; when more remains, a
 * closing notice says which offset to read next. A PNG, JPEG, GIF or WebP image goes to the model as an image
 * ({@link ToolSignal.Image}; a model that takes none reads what it was); other binary files are refused.
 */
public final class ReadFileTool implements Tool {
    public static final String NAME = "read_file";
    static final int MAX_LINES = 2000;
    static final int MAX_CHARS = 100_000;
    static final int MAX_LINE_CHARS = 2000;
    /** Anthropic's limit per image (OpenAI's is higher); past it an image is refused. */
    static final long MAX_IMAGE_BYTES = ImageInfo.MAX_BYTES;
    /** Anthropic refuses an image over 8000 pixels a side. */
    static final int MAX_IMAGE_SIDE = ImageInfo.MAX_SIDE;

    private static final ObjectNode SCHEMA = ToolArgs.schema("""
            {"type":"object","properties":{
              "path":{"type":"string","description":"File to read: absolute, or relative to the working directory."},
              "offset":{"type":"integer","minimum":1,"description":"1-based line to start at (default 1)."},
              "limit":{"type":"integer","minimum":1,"maximum":2000,"description":"How many lines to read (default and maximum 2000)."}
            },"required":["path"],"additionalProperties":false}""");

    @Override
    public String name() { return NAME; }

    @Override
    public String description() {
        return "Read a text file. Lines come numbered (line number, tab, text). Reads at most 2000 lines per call; "
                + "for larger files a notice at the end says which offset to read next. Use offset and limit to "
                + "read part of a file. A PNG, JPEG, GIF or WebP image is shown to you as an image. Other binary files "
                + "are refused.";
    }

    @Override
    public ObjectNode inputSchema() { return SCHEMA.deepCopy(); }

    @Override
    public ToolKind kind() { return ToolKind.READ; }

    @Override
    public ToolInvocation prepare(JsonNode raw, ToolContext ctx) throws ToolException {
        ObjectNode args = ToolArgs.check(NAME, raw, SCHEMA);
        Path path = ToolPaths.resolve(ctx, NAME, "path", ToolArgs.string(args, "path"));
        Integer offset = ToolArgs.integer(args, "offset");
        Integer limit = ToolArgs.integer(args, "limit");
        return new Invocation(ctx, path, offset == null ? 1 : offset, limit == null ? MAX_LINES : limit,
                offset != null || limit != null);
    }

    private record Invocation(ToolContext ctx, Path path, int offset, int limit, boolean ranged)
            implements ToolInvocation {

        @Override
        public String title() {
            String shown = ToolPaths.display(ctx, path);
            return ranged ? "Read " + shown + " (lines " + offset + "-" + (offset + limit - 1) + ")" : "Read " + shown;
        }

        @Override
        public List<ToolCallLocation> locations() {
            return List.of(new ToolCallLocation(path.toString(), offset));
        }

        @Override
        public PermissionRequest permission() {
            return new PermissionRequest.ReadPath(NAME, path);
        }

        @Override
        public ToolResult run(ToolProgress progress) throws IOException {
            if (ImageInfo.mimeTypeOfName(path.getFileName().toString()) != null && Files.isRegularFile(path)) {
                ToolResult image = image();
                if (image != null) return image;
            }
            String text;
            try {
                text = ctx.files().readText(path, offset, limit + 1); // one extra line tells whether more follows
            } catch (NoSuchFileException e) {
                return ToolResult.error("File not found: " + path);
            } catch (BinaryFileException e) {
                ToolResult image = image();
                if (image != null) return image;
                return ToolResult.error(path + " is a binary file; read_file reads text and PNG, JPEG, GIF and WebP images only.");
            } catch (IOException e) {
                if (Files.isDirectory(path)) {
                    return ToolResult.error(path + " is a directory; use list_directory to see what it holds.");
                }
                return ToolResult.error("Cannot read " + path + ": " + e.getMessage());
            }
            List<String> lines = text.isEmpty() ? List.of() : List.of(text.split("\n", -1));
            if (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty() && text.endsWith("\n")) {
                lines = lines.subList(0, lines.size() - 1);
            }
            if (lines.isEmpty()) {
                String msg = offset > 1 ? "Line " + offset + " is past the end of " + path + "." : path + " is empty.";
                return new ToolResult(msg, List.of(), false, raw(0, 0, false));
            }
            StringBuilder out = new StringBuilder();
            int shown = 0;
            boolean more = lines.size() > limit;
            int lastLine = Math.min(lines.size(), limit);
            for (int i = 0; i < lastLine; i++) {
                String line = lines.get(i);
                if (line.endsWith("\r")) line = line.substring(0, line.length() - 1);
                if (line.length() > MAX_LINE_CHARS) {
                    line = line.substring(0, MAX_LINE_CHARS) + " … [" + (line.length() - MAX_LINE_CHARS)
                            + " more characters on this line]";
                }
                String numbered = String.format("%6d\t%s\n", offset + i, line);
                if (out.length() + numbered.length() > MAX_CHARS && shown > 0) {
                    more = true;
                    break;
                }
                out.append(numbered);
                shown++;
            }
            int end = offset + shown - 1;
            if (more) {
                out.append("\n[Showing lines ").append(offset).append('-').append(end)
                        .append(". The file continues: call read_file with offset=").append(end + 1)
                        .append(" to read more.]\n");
            }
            return new ToolResult(out.toString(), List.of(), false, raw(offset, end, more));
        }

        /**
         * The file as an image for the model (PNG, JPEG, GIF or WebP by its first bytes, whatever its name), or null
         * when it is none; past {@value #MAX_IMAGE_BYTES} bytes or {@value #MAX_IMAGE_SIDE} pixels a side, refused.
         */
        private ToolResult image() throws IOException {
            ImageInfo info = ImageInfo.ofFile(path).orElse(null);
            if (info == null) return null;
            long size = Files.size(path);
            String what = info.describe(size);
            if (!info.fits(size)) {
                return ToolResult.error(path + " is " + what + ": larger than models accept (" + ImageInfo.limits() + "). Not read; a "
                        + "scaled-down copy (e.g. `magick in.png -resize 2000x2000 out.png`) can be read.");
            }
            byte[] bytes = Files.readAllBytes(path);
            if (bytes.length > MAX_IMAGE_BYTES) return ToolResult.error(path + " grew past " + (MAX_IMAGE_BYTES >> 20) + " MB while read.");
            String shown = what.substring(0, 1).toUpperCase(java.util.Locale.ROOT) + what.substring(1);
            ObjectNode raw = Json.object().put("path", path.toString()).put("mimeType", info.mimeType())
                    .put("bytes", bytes.length).put("width", info.width()).put("height", info.height());
            return new ToolResult(path + " is " + what + "; the image follows.", List.of(ToolCallContent.text(shown)), false,
                    raw, new ToolSignal.Image(info.mimeType(), Base64.getEncoder().encodeToString(bytes)));
        }

        private JsonNode raw(int first, int last, boolean more) {
            ObjectNode n = Json.object().put("path", path.toString());
            if (last >= first && last > 0) n.put("startLine", first).put("endLine", last);
            return n.put("truncated", more);
        }
    }
}
