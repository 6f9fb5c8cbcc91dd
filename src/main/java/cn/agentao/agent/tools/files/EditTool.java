package cn.agentao.agent.tools.files;

import cn.agentao.agent.core.tool.BinaryFileException;
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
import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolKind;
import cn.agentao.agent.util.IoErrors;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code edit}: exact string replacements in one file. Each {@code old_string} must occur exactly once unless
 * {@code replace_all}; several edits are applied in order to the text as changed by the earlier ones, and the
 * file is written only when every one of them applies (all or nothing). When the file uses CRLF line endings,
 * LF in the strings matches them.
 */
public final class EditTool implements Tool {
    public static final String NAME = "edit";
    static final int MAX_EDITS = 100;
    private static final Set<String> EDIT_KEYS = Set.of("old_string", "new_string", "replace_all");

    private static final ObjectNode SCHEMA = ToolArgs.schema("""
            {"type":"object","properties":{
              "path":{"type":"string","description":"File to edit: absolute, or relative to the working directory."},
              "old_string":{"type":"string","description":"Exact text to replace, including whitespace and indentation; must occur exactly once unless replace_all."},
              "new_string":{"type":"string","description":"The replacement text."},
              "replace_all":{"type":"boolean","description":"Replace every occurrence of old_string (default false)."},
              "edits":{"type":"array","description":"Several edits to apply in order, all or nothing (instead of old_string/new_string).",
                "items":{"type":"object","properties":{
                  "old_string":{"type":"string"},"new_string":{"type":"string"},"replace_all":{"type":"boolean"}},
                  "required":["old_string","new_string"],"additionalProperties":false}}
            },"required":["path"],"additionalProperties":false}""");

    @Override
    public String name() { return NAME; }

    @Override
    public String description() {
        return "Replace exact text in a file. old_string must match the file exactly (whitespace included) and occur "
                + "once, or set replace_all. Give several edits in 'edits' to change several places at once: they "
                + "apply in order and the file changes only if all of them apply. Read the file first.";
    }

    @Override
    public ObjectNode inputSchema() { return SCHEMA.deepCopy(); }

    @Override
    public ToolKind kind() { return ToolKind.EDIT; }

    /** One replacement. */
    record Edit(String oldString, String newString, boolean replaceAll) {}

    @Override
    public ToolInvocation prepare(JsonNode raw, ToolContext ctx) throws ToolException {
        ObjectNode args = ToolArgs.check(NAME, raw, SCHEMA);
        Path path = ToolPaths.resolve(ctx, NAME, "path", ToolArgs.string(args, "path"));
        List<Edit> edits = new ArrayList<>();
        boolean single = args.hasNonNull("old_string") || args.hasNonNull("new_string") || args.hasNonNull("replace_all");
        if (args.hasNonNull("edits")) {
            if (single) throw new ToolException(NAME + ": give either old_string/new_string or edits, not both");
            for (JsonNode e : args.get("edits")) edits.add(edit(e, "edits[" + edits.size() + "]"));
        } else {
            edits.add(edit(args, "arguments"));
        }
        if (edits.isEmpty()) throw new ToolException(NAME + ": 'edits' is empty");
        if (edits.size() > MAX_EDITS) throw new ToolException(NAME + ": at most " + MAX_EDITS + " edits per call");
        return new Invocation(ctx, path, List.copyOf(edits));
    }

    private static Edit edit(JsonNode e, String where) throws ToolException {
        if (!e.isObject()) throw new ToolException(NAME + ": " + where + " must be an object");
        JsonNode oldS = e.get("old_string");
        JsonNode newS = e.get("new_string");
        if (oldS == null || !oldS.isTextual()) throw new ToolException(NAME + ": " + where + " needs old_string (a string)");
        if (newS == null || !newS.isTextual()) throw new ToolException(NAME + ": " + where + " needs new_string (a string)");
        JsonNode all = e.get("replace_all");
        if (all != null && !all.isNull() && !all.isBoolean()) throw new ToolException(NAME + ": replace_all must be a boolean");
        if (where.startsWith("edits")) { // the top level was checked against the schema already
            for (var field : e.properties()) {
                if (!EDIT_KEYS.contains(field.getKey())) {
                    throw new ToolException(NAME + ": unknown key '" + field.getKey() + "' in " + where
                            + " (expected old_string, new_string, replace_all)");
                }
            }
        }
        if (oldS.asText().isEmpty()) {
            throw new ToolException(NAME + ": old_string in " + where + " is empty; use write_file to create a file");
        }
        if (oldS.asText().equals(newS.asText())) {
            throw new ToolException(NAME + ": old_string and new_string in " + where + " are the same");
        }
        return new Edit(oldS.asText(), newS.asText(), all != null && all.asBoolean(false));
    }

    private record Invocation(ToolContext ctx, Path path, List<Edit> edits) implements ToolInvocation {
        @Override
        public String title() {
            return "Edit " + ToolPaths.display(ctx, path) + (edits.size() > 1 ? " (" + edits.size() + " edits)" : "");
        }

        @Override
        public List<ToolCallLocation> locations() { return List.of(new ToolCallLocation(path.toString())); }

        @Override
        public PermissionRequest permission() { return new PermissionRequest.WritePath(NAME, path); }

        @Override
        public ToolResult run(ToolProgress progress) {
            String original;
            try {
                original = ctx.files().readText(path, null, null);
            } catch (NoSuchFileException e) {
                return ToolResult.error("File not found: " + path + ". Use write_file to create a file.");
            } catch (BinaryFileException e) {
                return ToolResult.error(path + " is a binary file; edit changes text files only.");
            } catch (IOException e) {
                return ToolResult.error("Cannot read " + path + ": " + e.getMessage());
            }
            String text = original;
            int replacements = 0;
            for (int i = 0; i < edits.size(); i++) {
                Edit e = edits.get(i);
                String label = edits.size() > 1 ? "Edit " + (i + 1) + " of " + edits.size() + ": " : "";
                String oldS = e.oldString();
                String newS = e.newString();
                int count = count(text, oldS);
                if (count == 0 && text.contains("\r\n") && oldS.contains("\n") && !oldS.contains("\r\n")) {
                    oldS = oldS.replace("\n", "\r\n");
                    newS = newS.replace("\r\n", "\n").replace("\n", "\r\n");
                    count = count(text, oldS);
                }
                if (count == 0) {
                    return ToolResult.error(label + "old_string was not found in " + path + ". It must match the file "
                            + "exactly, whitespace and indentation included; read the file again. No change was made.");
                }
                if (count > 1 && !e.replaceAll()) {
                    return ToolResult.error(label + "old_string occurs " + count + " times in " + path + ". Add surrounding "
                            + "lines to make it unique, or set replace_all. No change was made.");
                }
                text = e.replaceAll() ? text.replace(oldS, newS) : replaceOnce(text, oldS, newS);
                replacements += e.replaceAll() ? count : 1;
            }
            try {
                ctx.files().writeText(path, text);
            } catch (IOException ex) {
                return ToolResult.error("Cannot write " + path + ": " + IoErrors.describe(ex));
            }
            String msg = "Edited " + path + ": " + replacements + (replacements == 1 ? " replacement." : " replacements.");
            return new ToolResult(msg, List.of(new ToolCallContent.Diff(path.toString(), original, text, null)), false,
                    Json.object().put("path", path.toString()).put("replacements", replacements));
        }

        private static int count(String text, String s) {
            int n = 0;
            for (int i = text.indexOf(s); i >= 0; i = text.indexOf(s, i + s.length())) n++;
            return n;
        }

        private static String replaceOnce(String text, String oldS, String newS) {
            int i = text.indexOf(oldS);
            return text.substring(0, i) + newS + text.substring(i + oldS.length());
        }
    }
}
