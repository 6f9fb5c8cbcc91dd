package cn.agentao.agent.tools.search;

import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolArgs;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.tools.ToolPaths;
import cn.agentao.agent.permission.Glob;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolKind;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * {@code glob}: paths matching a pattern such as {@code src/**}{@code /*.java}, newest first or by name,
 * skipping {@code .git} and what {@code .gitignore} ignores. Bounded in entries walked and paths returned.
 */
public final class GlobTool implements Tool {
    public static final String NAME = "glob";
    static final int DEFAULT_LIMIT = 200;
    static final int MAX_WALK = 200_000;

    private static final ObjectNode SCHEMA = ToolArgs.schema("""
            {"type":"object","properties":{
              "pattern":{"type":"string","description":"Glob relative to path, e.g. 'src/**/*.java' or '*.md'. ** matches any number of directories; {a,b} alternatives."},
              "path":{"type":"string","description":"Directory to search from (default: the working directory)."},
              "sort":{"type":"string","enum":["mtime","name"],"description":"'mtime' (newest first, default) or 'name'."},
              "limit":{"type":"integer","minimum":1,"maximum":2000,"description":"At most this many paths (default 200)."},
              "include_ignored":{"type":"boolean","description":"Also match files that .gitignore ignores (default false)."}
            },"required":["pattern"],"additionalProperties":false}""");

    @Override
    public String name() { return NAME; }

    @Override
    public String description() {
        return "Find files by name pattern, e.g. 'src/**/*.java', '**/*Test.java', '*.{md,txt}'. Returns paths "
                + "(relative to the working directory when inside it), most recently modified first unless "
                + "sort='name'. Skips .git and files ignored by .gitignore.";
    }

    @Override
    public ObjectNode inputSchema() { return SCHEMA.deepCopy(); }

    @Override
    public ToolKind kind() { return ToolKind.SEARCH; }

    @Override
    public ToolInvocation prepare(JsonNode raw, ToolContext ctx) throws ToolException {
        ObjectNode args = ToolArgs.check(NAME, raw, SCHEMA);
        String base = ToolArgs.string(args, "path");
        Path dir = base == null ? ctx.cwd().normalize() : ToolPaths.resolve(ctx, NAME, "path", base);
        String pattern = ToolArgs.string(args, "pattern").strip();
        if (pattern.isEmpty()) throw new ToolException(NAME + ": 'pattern' must not be empty");
        // leading literal segments (absolute, ./, ../, plain directories) move the search root
        if (pattern.startsWith("/")) {
            dir = Path.of("/");
            pattern = pattern.substring(1);
        }
        String[] parts = pattern.split("/");
        int i = 0;
        while (i < parts.length - 1 && !Glob.hasWildcards(parts[i])) {
            dir = dir.resolve(parts[i]);
            i++;
        }
        dir = dir.normalize();
        String rest = String.join("/", Arrays.copyOfRange(parts, i, parts.length));
        return new Invocation(ctx, dir, rest, !"name".equals(ToolArgs.string(args, "sort")),
                ToolArgs.integer(args, "limit") == null ? DEFAULT_LIMIT : ToolArgs.integer(args, "limit"),
                ToolArgs.bool(args, "include_ignored", false));
    }

    private record Invocation(ToolContext ctx, Path dir, String pattern, boolean byMtime, int limit,
                              boolean includeIgnored) implements ToolInvocation {
        @Override
        public String title() {
            String shownDir = ToolPaths.display(ctx, dir);
            return "Find " + (shownDir.equals(".") ? "" : shownDir + "/") + pattern;
        }

        @Override
        public List<ToolCallLocation> locations() { return List.of(new ToolCallLocation(dir.toString())); }

        @Override
        public PermissionRequest permission() { return new PermissionRequest.ReadPath(NAME, dir); }

        @Override
        public ToolResult run(ToolProgress progress) throws IOException, InterruptedException {
            if (!Files.isDirectory(dir)) return ToolResult.error("Directory not found: " + dir);
            return find(ctx, dir, pattern, byMtime, limit, includeIgnored, FileTreeWalker.HELPERS);
        }
    }

    /**
     * The paths below {@code dir} matching {@code pattern}, as the tool prints them.
     *
     * <p>Not with ripgrep: every match's time costs a {@code stat} all the same (rg lists
     * only regular files), so a listing by rg first only adds its run (measured: bench/search.sh).
     *
     * @param helpers threads reading directories ahead of the walk
     */
    static ToolResult find(ToolContext ctx, Path dir, String pattern, boolean byMtime, int limit,
                           boolean includeIgnored, int helpers) throws IOException, InterruptedException {
        return find(ctx, dir, pattern, byMtime, limit, includeIgnored, helpers, Libc.ifLinked());
    }

    /** @param libc lists directories (and reads times), or null for the JDK's listing: the same result */
    static ToolResult find(ToolContext ctx, Path dir, String pattern, boolean byMtime, int limit,
                           boolean includeIgnored, int helpers, Libc libc) throws IOException, InterruptedException {
        Predicate<FileTreeWalker.Entry> matcher = matcher(pattern);
        record Match(Path path, long mtime) {}
        List<Match> matches = new ArrayList<>();
        // by time, each match needs its time: read by the helpers as they list its directory (fstatat on the open
        // directory with libc; without it, the lstat that also gives each entry's type), not on this thread
        FileTreeWalker walker = new FileTreeWalker(dir, !includeIgnored, MAX_WALK, ctx.cancellation())
                .libc(libc).parallel(helpers);
        if (byMtime) walker.withTimes();
        walker.walk(entry -> {
            if (matcher.test(entry)) {
                matches.add(new Match(entry.path(), byMtime ? entry.modifiedMillis() : 0));
            }
            return true;
        });
        Comparator<Match> order = byMtime
                ? Comparator.comparingLong(Match::mtime).reversed().thenComparing(m -> m.path().toString())
                : Comparator.comparing(m -> m.path().toString());
        matches.sort(order);
        StringBuilder out = new StringBuilder();
        if (matches.isEmpty()) out.append("No files match ").append(pattern).append(" in ").append(dir).append(".\n");
        int shown = Math.min(limit, matches.size());
        for (Match m : matches.subList(0, shown)) out.append(ToolPaths.display(ctx, m.path())).append('\n');
        if (matches.size() > shown) {
            out.append("[").append(matches.size() - shown).append(" more matches not shown; narrow the pattern "
                    + "or raise limit.]\n");
        }
        if (walker.truncated()) {
            out.append("[Search stopped after ").append(MAX_WALK).append(" entries; narrow the path.]\n");
        }
        return new ToolResult(out.toString(), List.of(), false, Json.object().put("matches", matches.size())
                .put("truncated", matches.size() > shown || walker.truncated()));
    }

    /**
     * The test for one pattern. {@code **}{@code /NAME}, where NAME has no '/', '**' or class, matches exactly the
     * paths whose last segment NAME matches, so only the name is looked at (and {@code *SUFFIX} by its end).
     */
    static Predicate<FileTreeWalker.Entry> matcher(String pattern) {
        if (pattern.startsWith("**/")) {
            String name = pattern.substring(3);
            if (name.indexOf('/') < 0 && !name.contains("**") && name.indexOf('[') < 0) {
                String suffix = name.substring(1);
                if (name.startsWith("*") && !suffix.isEmpty() && suffix.chars().noneMatch(c -> "*?[]{}\\,".indexOf(c) >= 0)) {
                    return entry -> entry.relative().endsWith(suffix);
                }
                Pattern byName = Glob.path(name);
                return entry -> byName.matcher(entry.name()).matches();
            }
        }
        Pattern whole = Glob.path(pattern);
        return entry -> whole.matcher(entry.relative()).matches();
    }
}
