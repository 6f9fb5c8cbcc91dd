package cn.agentao.agent.connect.smcp;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A tool of a Computer as the model sees it: {@code smcp__<computer>__<tool>}, or one of the office requests every
 * Computer answers ({@link Kind#DESKTOP}, {@link Kind#RESOURCES}, and {@link Kind#DOCUMENT} up to 0.2,
 * {@link Kind#SKILLS} and {@link Kind#SKILL} from 0.3), which only read. Up to 0.2 {@code <tool>} is the tool's name
 * (its {@code alias} of {@code a2c_tool_meta} when two of the Computer's tools share a name); from 0.3 it is the
 * tool's exposed name {@code <bundle_id>__<alias or name>}, unique on its Computer, so a tool's identity (its name,
 * what "always allow" remembers) includes the MCP server ({@code bundle_id}) it belongs to.
 *
 * @param remoteName the {@code tool_name} of {@code client:tool_call} (from 0.3 the exposed name)
 * @param autoApply  {@code a2c_tool_meta.auto_apply}: the Computer's owner lets it run without asking
 * @param readOnly   the MCP annotation {@code readOnlyHint} ({@code meta.MCP_TOOL_ANNOTATION}), or an office request
 */
public record SmcpTool(Kind kind, String computer, String remoteName, String name, String description, ObjectNode schema,
                       boolean autoApply, boolean readOnly, boolean destructive) {
    public enum Kind { TOOL, DESKTOP, RESOURCES, DOCUMENT, SKILLS, SKILL }

    static final String PREFIX = "smcp__";

    /** The tools of {@code GetToolsRet.tools}, named under {@code computerKey}; names join {@code taken}. */
    static List<SmcpTool> fromTools(String computer, String computerKey, JsonNode tools, java.util.Set<String> taken, boolean v03) {
        List<JsonNode> list = new ArrayList<>();
        if (tools != null && tools.isArray()) tools.forEach(t -> { if (t.isObject() && t.path("name").isTextual()) list.add(t); });
        Map<String, Integer> counts = new HashMap<>();
        for (JsonNode t : list) counts.merge(t.get("name").asText(), 1, Integer::sum);
        List<SmcpTool> out = new ArrayList<>();
        for (JsonNode t : list) {
            String remote = t.get("name").asText();
            JsonNode meta = jsonField(t.path("meta"), "a2c_tool_meta");
            JsonNode annotations = jsonField(t.path("meta"), "MCP_TOOL_ANNOTATION");
            if (annotations.isMissingNode()) annotations = t.path("annotations");
            String alias = meta.path("alias").isTextual() && !meta.path("alias").asText().isBlank() ? meta.path("alias").asText() : null;
            // 0.3: the name is already the exposed name (bundle id and alias applied by the Computer), unique there
            String shown = !v03 && counts.get(remote) > 1 && alias != null ? alias : remote;
            String bundle = t.path("bundle_id").isTextual() && !t.get("bundle_id").asText().isBlank() ? t.get("bundle_id").asText() : null;
            boolean readOnly = annotations.path("readOnlyHint").asBoolean(false);
            boolean destructive = !readOnly && annotations.path("destructiveHint").asBoolean(true);
            ObjectNode schema = t.path("params_schema").isObject() ? ((ObjectNode) t.get("params_schema")).deepCopy() : Json.object();
            String description = t.path("description").asText("");
            out.add(new SmcpTool(Kind.TOOL, computer, remote, cn.agentao.agent.connect.mcp.McpNames.toolName(PREFIX, computerKey, shown, taken),
                    description + " (on Computer " + computer + (v03 && bundle != null ? ", MCP server " + bundle : "") + ")", schema, meta.path("auto_apply").asBoolean(false), readOnly, destructive));
        }
        return out;
    }

    /**
     * The office requests offered for every Computer: its desktop, its resources, and a document's access URI (up to
     * 0.2; 0.3 removed the Finder events) or its SKILLs (from 0.3).
     */
    static List<SmcpTool> officeRequests(String computer, String computerKey, java.util.Set<String> taken, boolean v03) {
        ObjectNode desktop = Json.object().put("type", "object");
        desktop.putObject("properties").<ObjectNode>set("window", Json.object().put("type", "string")
                        .put("description", "a window:// URI to look at only that window"))
                .set("desktop_size", Json.object().put("type", "integer").put("description", "at most this many windows"));
        ObjectNode resources = Json.object().put("type", "object");
        resources.putObject("properties").<ObjectNode>set("mcp_server", Json.object().put("type", "string")
                        .put("description", "the MCP server of the Computer to list (all when left out)"))
                .set("cursor", Json.object().put("type", "string").put("description", "next_cursor of the previous page"));
        ObjectNode document = Json.object().put("type", "object");
        document.putObject("properties").set("uri", Json.object().put("type", "string").put("description", "a dpe:// document URI"));
        document.putArray("required").add("uri");
        List<SmcpTool> out = new ArrayList<>(List.of(
                request(Kind.DESKTOP, computer, computerKey, "get_desktop", "Shows the windows open on Computer " + computer
                        + " (each a window:// URI and its content).", desktop, taken),
                request(Kind.RESOURCES, computer, computerKey, "get_resources", "Lists the resources (documents, windows) of the MCP "
                        + "servers on Computer " + computer + ".", resources, taken)));
        if (!v03) {
            out.add(request(Kind.DOCUMENT, computer, computerKey, "get_dpe", "Turns a dpe:// document URI of Computer " + computer
                    + " into a URI where the document can be fetched.", document, taken));
            return out;
        }
        ObjectNode skill = Json.object().put("type", "object");
        skill.putObject("properties").<ObjectNode>set("name", Json.object().put("type", "string")
                        .put("description", "the SKILL's name as get_skills lists it"))
                .set("rel_path", Json.object().put("type", "string").put("description", "a file inside the SKILL (default: SKILL.md)"));
        skill.putArray("required").add("name");
        out.add(request(Kind.SKILLS, computer, computerKey, "get_skills", "Lists the SKILLs (instructions for tasks) installed on Computer "
                + computer + ", with what each is for.", Json.object().put("type", "object"), taken));
        out.add(request(Kind.SKILL, computer, computerKey, "get_skill", "Reads a SKILL of Computer " + computer
                + ": its SKILL.md, or another file of it by rel_path.", skill, taken));
        return out;
    }

    private static SmcpTool request(Kind kind, String computer, String key, String event, String description, ObjectNode schema,
                                    java.util.Set<String> taken) {
        return new SmcpTool(kind, computer, event, cn.agentao.agent.connect.mcp.McpNames.toolName(PREFIX, key, event, taken),
                description, schema, false, true, false);
    }

    /** A meta field that is a JSON string (as the spec sends it) or, leniently, an object. */
    private static JsonNode jsonField(JsonNode meta, String field) {
        JsonNode v = meta.path(field);
        if (v.isObject()) return v;
        if (v.isTextual()) {
            try {
                JsonNode parsed = Json.mapper().readTree(v.asText());
                if (parsed != null && parsed.isObject()) return parsed;
            } catch (java.io.IOException | RuntimeException e) {
                // not JSON: no metadata
            }
        }
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }
}
