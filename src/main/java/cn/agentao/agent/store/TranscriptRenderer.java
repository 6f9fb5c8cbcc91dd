package cn.agentao.agent.store;

import cn.agentao.agent.core.repository.Timestamps;

import cn.agentao.agent.core.record.RecordTypes;
import cn.agentao.agent.core.repository.SessionHeader;
import cn.agentao.agent.core.repository.StoredSession;

import cn.agentao.agent.util.InertText;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders a stored session as a transcript for people: what the user said, what the agent answered (its
 * reasoning too, when asked), the tool calls it made with how each ended and its result in short, and its plans.
 * The agent's answers are in the model's own messages ({@code model_message} records of type AI, the way the
 * engine writes them), and in {@code agent_chunk}/{@code thought_chunk} records for what the agent said itself
 * (command answers, errors, a reply cut short). Settings and unknown records are left out. Consecutive chunks
 * are joined into one passage. A transcript is for reading: its text is made inert ({@link InertText}), tool titles
 * show every character they hold; the exact log is {@code export --format jsonl}.
 */
public final class TranscriptRenderer {
    public enum Format { TEXT, MARKDOWN }

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneOffset.UTC);

    private final Format format;
    private final boolean includeThoughts;

    /** @param includeThoughts whether to show the agent's reasoning ({@code thought_chunk} records) */
    public TranscriptRenderer(Format format, boolean includeThoughts) {
        this.format = format;
        this.includeThoughts = includeThoughts;
    }

    public String render(StoredSession session) {
        Rendering out = new Rendering(format == Format.MARKDOWN);
        SessionHeader header = session.header();
        out.heading(session.title().orElse("Session " + session.sessionId()),
                "session " + session.sessionId(), "cwd " + header.cwd(),
                "created " + (header.createdAt() == null ? "?" : TIME.format(header.createdAt())));
        Map<ObjectNode, ToolCall> tools = toolCalls(session.records());
        for (ObjectNode record : session.records()) {
            switch (record.get("type").asText()) {
                case RecordTypes.USER_MESSAGE -> out.speaker("User", record, blocksText(record.get("content")));
                case RecordTypes.AGENT_CHUNK -> out.agentText(record, blocksText(record.get("content")));
                case RecordTypes.MODEL_MESSAGE -> {
                    JsonNode message = modelMessage(record);
                    if (!"AI".equals(message.path("type").asText())) break; // prompts and tool results show elsewhere
                    String thinking = message.path("thinking").asText("");
                    String text = message.path("text").asText("");
                    if (includeThoughts && !thinking.isBlank()) out.thought(record, thinking);
                    if (!text.isBlank()) out.agentText(record, text);
                }
                case RecordTypes.THOUGHT_CHUNK -> {
                    if (includeThoughts) out.thought(record, blocksText(record.get("content")));
                }
                case RecordTypes.TOOL_CALL -> {
                    ToolCall tool = tools.get(record);
                    if (tool != null) out.tool(record, tool);
                }
                case RecordTypes.PLAN -> out.plan(record, record.path("entries"));
                case RecordTypes.TURN_END -> out.turnEnd(record.path("stopReason").asText("end_turn"));
                default -> { } // model history, settings, titles and record types unknown here
            }
        }
        out.warnings(session.warnings());
        return out.finish();
    }

    /** How each tool call ended up: its start merged with every later update; {@code result} its output in short. */
    private record ToolCall(String title, String kind, String status, String result) {
        boolean ended() { return "completed".equals(status) || "failed".equals(status); }

        ToolCall merge(JsonNode update) {
            String shown = update.has("content") ? resultInShort(update.get("content")) : result;
            return new ToolCall(update.path("title").asText(title), update.path("kind").asText(kind),
                    update.path("status").asText(status), shown);
        }
    }

    /** Longest result shown for a tool call; the whole output stays in the log (and `export --format jsonl`). */
    static final int RESULT_CHARS = 160;

    /** A tool call's ACP content in one short line: the start of its text, or what a diff or terminal was. */
    private static String resultInShort(JsonNode content) {
        List<String> parts = new ArrayList<>();
        for (JsonNode item : content) {
            switch (item.path("type").asText()) {
                case "content" -> parts.add(blockText(item.path("content")));
                case "diff" -> parts.add("[" + (item.path("oldText").isTextual() ? "edited " : "created ")
                        + item.path("path").asText() + "]");
                case "terminal" -> parts.add("[terminal output]");
                default -> { }
            }
        }
        String text = String.join(" ", parts).strip().replaceAll("\\s+", " ");
        if (text.isEmpty()) return null;
        return text.length() > RESULT_CHARS ? text.substring(0, RESULT_CHARS - 1) + "…" : text;
    }

    /** The chat message of a model_message record: the engine keeps it as a JSON string; older logs as an object. */
    private static JsonNode modelMessage(ObjectNode record) {
        JsonNode message = record.path("message");
        if (!message.isTextual()) return message;
        try {
            JsonNode parsed = Json.mapper().readTree(message.textValue());
            return parsed == null ? MissingNode.getInstance() : parsed;
        } catch (IOException e) {
            return MissingNode.getInstance();
        }
    }

    /**
     * Each tool_call record's final state. Some OpenAI-compatible servers reuse ids across turns ("call_0" every
     * turn): an update belongs to the latest call of its id, and each call keeps its own.
     */
    private static Map<ObjectNode, ToolCall> toolCalls(List<ObjectNode> records) {
        Map<ObjectNode, ToolCall> tools = new java.util.IdentityHashMap<>();
        Map<String, ObjectNode> latest = new HashMap<>();
        for (ObjectNode record : records) {
            String id = record.path("toolCallId").asText();
            switch (record.get("type").asText()) {
                case RecordTypes.TOOL_CALL -> {
                    ObjectNode before = latest.get(id);
                    ToolCall open = before == null ? null : tools.get(before);
                    if (open != null && !open.ended()) { // the same call announced again: one call
                        tools.put(before, open.merge(record));
                    } else { // a finished call's id again: another call, shown apart
                        latest.put(id, record);
                        tools.put(record, new ToolCall("tool call", "other", "pending", null).merge(record));
                    }
                }
                case RecordTypes.TOOL_CALL_UPDATE -> {
                    ObjectNode start = latest.get(id);
                    if (start != null) tools.computeIfPresent(start, (k, tool) -> tool.merge(record));
                }
                default -> { }
            }
        }
        return tools;
    }

    /** The readable text of one ACP content block or an array of them. */
    private static String blocksText(JsonNode content) {
        if (content == null) return "";
        if (content.isArray()) {
            List<String> parts = new ArrayList<>();
            content.forEach(block -> parts.add(blockText(block)));
            return String.join("\n", parts);
        }
        return blockText(content);
    }

    private static String blockText(JsonNode block) {
        return switch (block.path("type").asText()) {
            case "text" -> block.path("text").asText();
            case "resource_link" -> "[link: " + block.path("uri").asText() + "]";
            case "resource" -> "[resource: " + block.path("resource").path("uri").asText() + "]";
            case "image" -> "[image]";
            case "audio" -> "[audio]";
            default -> "[" + block.path("type").asText("content") + "]";
        };
    }

    /** The transcript being written: plain text or Markdown, with streamed chunks gathered into passages. */
    private static final class Rendering {
        private enum Passage { NONE, AGENT, THOUGHT }

        private final boolean markdown;
        private final StringBuilder out = new StringBuilder();
        private final StringBuilder passage = new StringBuilder();
        private Passage open = Passage.NONE;
        private boolean agentSpeaking;

        Rendering(boolean markdown) {
            this.markdown = markdown;
        }

        void heading(String title, String... facts) {
            if (markdown) {
                out.append("# ").append(title).append("\n\n");
                for (String fact : facts) out.append("- ").append(fact).append('\n');
            } else {
                out.append(title).append('\n').append(String.join(" | ", facts)).append('\n');
            }
        }

        void speaker(String who, ObjectNode record, String text) {
            flush();
            agentSpeaking = who.equals("Agent");
            String when = timeOf(record);
            blankLine();
            out.append(markdown ? "## " + who + " (" + when + ")\n\n" : "[" + when + "] " + who + ":\n");
            if (!text.isEmpty()) paragraph(text);
        }

        void agentText(ObjectNode record, String text) {
            if (!agentSpeaking) speaker("Agent", record, "");
            continuePassage(Passage.AGENT, text);
        }

        void thought(ObjectNode record, String text) {
            if (!agentSpeaking) speaker("Agent", record, "");
            continuePassage(Passage.THOUGHT, text);
        }

        void tool(ObjectNode record, ToolCall tool) {
            if (!agentSpeaking) speaker("Agent", record, "");
            flush();
            String title = InertText.forApproval(tool.title());
            String result = tool.result() == null ? "" : (markdown ? " — " + tool.result().replace("`", "'") : ": " + tool.result());
            out.append(markdown ? "- Tool: **" + title + "** (" + tool.kind() + "): " + tool.status() + result + "\n\n"
                    : "  * tool: " + title + " (" + tool.kind() + ") - " + tool.status() + result + '\n');
        }

        void plan(ObjectNode record, JsonNode entries) {
            if (!agentSpeaking) speaker("Agent", record, "");
            flush();
            out.append(markdown ? "Plan:\n\n" : "  * plan:\n");
            for (JsonNode entry : entries) {
                String status = entry.path("status").asText("pending");
                String box = switch (status) {
                    case "completed" -> "[x]";
                    case "in_progress" -> "[~]";
                    default -> "[ ]";
                };
                out.append(markdown ? "- " + box + " " : "      " + box + " ").append(entry.path("content").asText()).append('\n');
            }
            if (markdown) out.append('\n');
        }

        void turnEnd(String stopReason) {
            flush();
            agentSpeaking = false;
            if (!stopReason.equals("end_turn")) {
                out.append(markdown ? "*Turn stopped: " + stopReason + "*\n\n" : "  (turn stopped: " + stopReason + ")\n");
            }
        }

        void warnings(List<String> warnings) {
            flush();
            if (warnings.isEmpty()) return;
            out.append(markdown ? "\n---\n\n**Damaged lines skipped:**\n\n" : "\nDamaged lines skipped:\n");
            for (String w : warnings) out.append(markdown ? "- " : "  ").append(w).append('\n');
        }

        String finish() {
            flush();
            return InertText.forTerminal(out.toString());
        }

        private void continuePassage(Passage kind, String text) {
            if (open != kind) flush();
            open = kind;
            passage.append(text);
        }

        private void flush() {
            if (open == Passage.THOUGHT) {
                out.append(markdown ? quote(passage.toString()) : indent("(thinking) " + passage, "  ") + "\n");
            } else if (open == Passage.AGENT) {
                paragraph(passage.toString());
            }
            passage.setLength(0);
            open = Passage.NONE;
        }

        private void blankLine() {
            while (out.length() < 2 || out.charAt(out.length() - 1) != '\n' || out.charAt(out.length() - 2) != '\n') {
                out.append('\n');
            }
        }

        private void paragraph(String text) {
            out.append(markdown ? text.strip() + "\n\n" : indent(text.strip(), "  ") + "\n");
        }

        private static String timeOf(ObjectNode record) {
            Instant ts = Timestamps.parseOrNull(record.path("ts").asText(null));
            return ts == null ? "?" : TIME.format(ts);
        }

        private static String indent(String text, String prefix) {
            return prefix + text.replace("\n", "\n" + prefix);
        }

        private static String quote(String text) {
            return "> *Thinking:* " + text.strip().replace("\n", "\n> ") + "\n\n";
        }
    }
}
