package cn.agentao.agent.tools;

import cn.agentao.agent.util.Cancellation;

import cn.agentao.agent.permission.Glob;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.protocol.Json;
import cn.agentao.agent.protocol.ToolCallLocation;
import cn.agentao.agent.protocol.ToolKind;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code grep}: lines matching a Java regular expression, in one file or a tree (skipping {@code .git}, what
 * {@code .gitignore} ignores, binary files, files over {@value #MAX_FILE_BYTES} bytes and symbolic links).
 * Output {@code path:line:text}, bounded in matches and characters, with a notice when cut. A runaway regex
 * stops on cancellation.
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
            Search search = new Search();
            if (Files.isRegularFile(path)) {
                search.file(path);
            } else {
                Pattern filter = glob == null ? null : Glob.path(glob);
                boolean byPath = glob != null && glob.contains("/");
                FileTreeWalker walker = new FileTreeWalker(path, !includeIgnored, MAX_WALK, ctx.cancellation());
                walker.walk(entry -> {
                    if (!entry.attributes().isRegularFile()) return true;
                    if (filter != null) {
                        String subject = byPath ? entry.relative() : entry.path().getFileName().toString();
                        if (!filter.matcher(subject).matches()) return true;
                    }
                    search.file(entry.path());
                    return !search.full();
                });
                search.walkTruncated = walker.truncated();
            }
            return search.result();
        }

        /** The state of one search. */
        private final class Search {
            final StringBuilder out = new StringBuilder();
            int matches;
            int files;
            boolean cut;
            boolean walkTruncated;

            boolean full() {
                return matches >= maxMatches || out.length() >= MAX_OUTPUT_CHARS;
            }

            void file(Path file) throws IOException, InterruptedException {
                if (Files.isSymbolicLink(file) && !file.equals(path)) return;
                if (Files.size(file) > MAX_FILE_BYTES || TextFiles.looksBinary(file)) return;
                files++;
                String shown = ToolPaths.display(ctx, file);
                var decoder = StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
                try (BufferedReader r = new BufferedReader(new InputStreamReader(
                        Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS), decoder))) {
                    String line;
                    int n = 0;
                    while ((line = r.readLine()) != null) {
                        n++;
                        if ((n & 1023) == 0) checkCancelled();
                        Matcher m = pattern.matcher(new CancellableText(line, ctx.cancellation()));
                        if (!m.find()) continue;
                        if (full()) {
                            cut = true;
                            return;
                        }
                        String text = line.length() > MAX_LINE_CHARS ? line.substring(0, MAX_LINE_CHARS) + " …" : line;
                        out.append(shown).append(':').append(n).append(':').append(text).append('\n');
                        matches++;
                    }
                } catch (CancellableText.Cancelled e) {
                    throw new InterruptedException("search cancelled");
                } catch (IOException e) {
                    // unreadable file: skip it
                }
            }

            private void checkCancelled() throws InterruptedException {
                if (Thread.currentThread().isInterrupted() || ctx.cancellation().isCancelled()) {
                    throw new InterruptedException("search cancelled");
                }
            }

            ToolResult result() {
                if (matches == 0) out.append("No matches for '").append(pattern.pattern()).append("' in ")
                        .append(files).append(files == 1 ? " file" : " files").append(".\n");
                if (cut || full()) {
                    out.append("[Output stopped at ").append(matches).append(" matching lines")
                            .append(cut ? "; there are more" : "; there may be more")
                            .append(". Narrow the pattern, path or glob to see the rest.]\n");
                }
                if (walkTruncated) out.append("[Search stopped after ").append(MAX_WALK).append(" entries; narrow the path.]\n");
                return new ToolResult(out.toString(), List.of(), false, Json.object().put("matches", matches)
                        .put("files", files).put("truncated", cut || full() || walkTruncated));
            }
        }
    }

    /** Text whose reading aborts once the call is cancelled, so a catastrophic regex cannot run on. */
    static final class CancellableText implements CharSequence {
        static final class Cancelled extends RuntimeException {
            Cancelled() { super("cancelled", null, false, false); }
        }

        private final String text;
        private final Cancellation cancellation;
        private int reads;

        CancellableText(String text, Cancellation cancellation) {
            this.text = text;
            this.cancellation = cancellation;
        }

        @Override
        public char charAt(int index) {
            if ((++reads & 0xffff) == 0 && (Thread.currentThread().isInterrupted() || cancellation.isCancelled())) {
                throw new Cancelled();
            }
            return text.charAt(index);
        }

        @Override
        public int length() { return text.length(); }

        @Override
        public CharSequence subSequence(int start, int end) { return text.subSequence(start, end); }

        @Override
        public String toString() { return text; }
    }
}
