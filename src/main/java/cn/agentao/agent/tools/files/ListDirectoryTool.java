package cn.agentao.agent.tools.files;

import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolArgs;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.tools.ToolPaths;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolKind;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** {@code list_directory}: the entries of one directory, directories first, with file sizes. */
public final class ListDirectoryTool implements Tool {
    public static final String NAME = "list_directory";
    static final int MAX_ENTRIES = 1000;

    private static final ObjectNode SCHEMA = ToolArgs.schema("""
            {"type":"object","properties":{
              "path":{"type":"string","description":"Directory to list: absolute, or relative to the working directory (default: the working directory)."}
            },"additionalProperties":false}""");

    @Override
    public String name() { return NAME; }

    @Override
    public String description() {
        return "List the files and subdirectories of a directory (not recursive). Directories end with '/', "
                + "symbolic links with '@'; file sizes in bytes. Use glob to find files by pattern.";
    }

    @Override
    public ObjectNode inputSchema() { return SCHEMA.deepCopy(); }

    @Override
    public ToolKind kind() { return ToolKind.READ; }

    @Override
    public ToolInvocation prepare(JsonNode raw, ToolContext ctx) throws ToolException {
        ObjectNode args = ToolArgs.check(NAME, raw, SCHEMA);
        String p = ToolArgs.string(args, "path");
        Path dir = p == null ? ctx.cwd().normalize() : ToolPaths.resolve(ctx, NAME, "path", p);
        return new Invocation(ctx, dir);
    }

    private record Invocation(ToolContext ctx, Path dir) implements ToolInvocation {
        @Override
        public String title() { return "List " + ToolPaths.display(ctx, dir); }

        @Override
        public List<ToolCallLocation> locations() { return List.of(new ToolCallLocation(dir.toString())); }

        @Override
        public PermissionRequest permission() { return new PermissionRequest.ReadPath(NAME, dir); }

        @Override
        public ToolResult run(ToolProgress progress) throws InterruptedException {
            if (!Files.exists(dir)) return ToolResult.error("Directory not found: " + dir);
            if (!Files.isDirectory(dir)) return ToolResult.error(dir + " is a file, not a directory; use read_file.");
            record Item(String name, boolean directory, boolean link, long size) {}
            List<Item> items = new ArrayList<>();
            int total = 0;
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
                for (Path p : ds) {
                    if (Thread.currentThread().isInterrupted() || ctx.cancellation().isCancelled()) {
                        throw new InterruptedException("listing cancelled");
                    }
                    total++;
                    if (items.size() >= MAX_ENTRIES * 10) continue; // keep counting, stop collecting
                    BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    items.add(new Item(p.getFileName().toString(), a.isDirectory(), a.isSymbolicLink(), a.size()));
                }
            } catch (IOException e) {
                return ToolResult.error("Cannot list " + dir + ": " + e.getMessage());
            }
            items.sort(Comparator.comparing((Item i) -> !i.directory()).thenComparing(Item::name));
            StringBuilder out = new StringBuilder();
            out.append(dir).append(total == 0 ? " is empty.\n" : ":\n");
            int shown = Math.min(items.size(), MAX_ENTRIES);
            for (Item i : items.subList(0, shown)) {
                out.append(i.name());
                if (i.directory()) out.append('/');
                else if (i.link()) out.append('@');
                else out.append("  (").append(i.size()).append(" bytes)");
                out.append('\n');
            }
            if (total > shown) {
                out.append("[").append(total - shown).append(" more entries not shown; use glob with a pattern to narrow.]\n");
            }
            return new ToolResult(out.toString(), List.of(), false,
                    Json.object().put("path", dir.toString()).put("entries", total));
        }
    }
}
