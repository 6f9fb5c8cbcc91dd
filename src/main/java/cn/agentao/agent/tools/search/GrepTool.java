package cn.agentao.agent.tools.search;

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
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code grep}: lines matching a Java regular expression, in one file or a tree (skipping {@code .git}, what
 * {@code .gitignore} ignores, binary files, files over {@value #MAX_FILE_BYTES} bytes and symbolic links).
 * Output {@code path:line:text}, bounded in matches and characters, with a notice when cut. A runaway regex
 * stops on cancellation. The search itself is {@link GrepSearch}: files searched in parallel, results in walk
 * order, text without the regex's required literals passed over as bytes.
 */
public final class GrepTool implements Tool {
    public static final String NAME = "grep";
    static final int DEFAULT_MAX_MATCHES = 200;
    static final int MAX_OUTPUT_CHARS = 50_000;
    static final int MAX_LINE_CHARS = 300;
    static final long MAX_FILE_BYTES = 8L << 20;
    static final int MAX_WALK = 200_000;

    private static final ObjectNode SCHEMA = ToolArgs.schema("""
            {"type":"object","properties":{
              "pattern":{"type":"string","description":"Java regular expression searched in each line, e.g. 'class \\\\w+Test' or 'TODO|FIXME'."},
              "path":{"type":"string","description":"File or directory to search (default: the working directory)."},
              "glob":{"type":"string","description":"Only files matching this glob: by name ('*.java') or, with a '/', by path below the search directory ('src/**/*.ts')."},
              "case_insensitive":{"type":"boolean","description":"Ignore case (default false)."},
              "max_matches":{"type":"integer","minimum":1,"maximum":2000,"description":"At most this many matching lines (default 200)."},
              "include_ignored":{"type":"boolean","description":"Also search files that .gitignore ignores (default false)."}
            },"required":["pattern"],"additionalProperties":false}""");

    @Override
    public String name() { return NAME; }

    @Override
    public String description() {
        return "Search file contents with a Java regular expression. Prints path:line:text for each matching line. "
                + "Searches the working directory by default, skipping .git, ignored (.gitignore) and binary files; "
                + "narrow with path and glob.";
    }

    @Override
    public ObjectNode inputSchema() { return SCHEMA.deepCopy(); }

    @Override
    public ToolKind kind() { return ToolKind.SEARCH; }

    @Override
    public ToolInvocation prepare(JsonNode raw, ToolContext ctx) throws ToolException {
        ObjectNode args = ToolArgs.check(NAME, raw, SCHEMA);
        String regex = ToolArgs.string(args, "pattern");
        Pattern pattern;
        try {
            pattern = Pattern.compile(regex, ToolArgs.bool(args, "case_insensitive", false)
                    ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
        } catch (PatternSyntaxException e) {
            throw new ToolException(NAME + ": invalid regular expression: " + e.getDescription() + " near index "
                    + e.getIndex() + " of " + regex);
        }
        String p = ToolArgs.string(args, "path");
        Path path = p == null ? ctx.cwd().normalize() : ToolPaths.resolve(ctx, NAME, "path", p);
        String glob = ToolArgs.string(args, "glob");
        Integer max = ToolArgs.integer(args, "max_matches");
        return new Invocation(ctx, path, pattern, glob == null || glob.isBlank() ? null : glob.strip(),
                max == null ? DEFAULT_MAX_MATCHES : max, ToolArgs.bool(args, "include_ignored", false));
    }

    private record Invocation(ToolContext ctx, Path path, Pattern pattern, String glob, int maxMatches,
                              boolean includeIgnored) implements ToolInvocation {
        @Override
        public String title() {
            return "Search '" + pattern.pattern() + "' in " + ToolPaths.display(ctx, path) + (glob == null ? "" : " (" + glob + ")");
        }

        @Override
        public List<ToolCallLocation> locations() { return List.of(new ToolCallLocation(path.toString())); }

        @Override
        public PermissionRequest permission() { return new PermissionRequest.ReadPath(NAME, path); }

        @Override
        public ToolResult run(ToolProgress progress) throws IOException, InterruptedException {
            if (!Files.exists(path)) return ToolResult.error("Not found: " + path);
            boolean tree = Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS);
            return new GrepSearch(ctx, pattern, true, maxMatches, GrepSearch.DEFAULT_THREADS, tree ? Ripgrep.forGrep(ctx) : null)
                    .run(path, glob, includeIgnored);
        }
    }
}
