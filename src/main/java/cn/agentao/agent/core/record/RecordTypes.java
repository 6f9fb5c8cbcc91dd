package cn.agentao.agent.core.record;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The record types the engine writes ("engine records"), reserved here so that the store, the transcript and
 * other readers agree on them. The store itself accepts any type; readers ignore types they do not know.
 * {@code docs/session-format.md} documents each payload.
 */
public final class RecordTypes {
    /** The user's prompt: {@code {"content":[ContentBlock...]}}. */
    public static final String USER_MESSAGE = "user_message";
    /** One streamed chunk of the agent's reply: {@code {"content":ContentBlock}}. */
    public static final String AGENT_CHUNK = "agent_chunk";
    /** One streamed chunk of the agent's reasoning: {@code {"content":ContentBlock}}. */
    public static final String THOUGHT_CHUNK = "thought_chunk";
    /** A tool call started: the ACP {@code tool_call} fields ({@code toolCallId, title, kind, status, ...}). */
    public static final String TOOL_CALL = "tool_call";
    /** A tool call changed: {@code toolCallId} and the ACP fields that changed ({@code status, content, ...}). */
    public static final String TOOL_CALL_UPDATE = "tool_call_update";
    /** The agent's plan, replacing any earlier one: {@code {"entries":[PlanEntry...]}}. */
    public static final String PLAN = "plan";
    /** One chat message of the model history (LangChain4j style): {@code {"message":{...}}}. */
    public static final String MODEL_MESSAGE = "model_message";
    /** A snapshot of the session's settings: {@code {"model":...,"mode":...,"permissions":[...]}}. */
    public static final String STATE = "state";
    /** The session's title, replacing any earlier one: {@code {"text":"..."}}. */
    public static final String TITLE = "title";
    /** The model history was compacted: {@code {"messages":[{...}]}} replaces every earlier model_message. */
    public static final String COMPACTION = "compaction";
    /** One model call's tokens: {@code {"model","input","output","cachedInput","cost"?,"currency"?}} (cost when priced). */
    public static final String USAGE = "usage";
    /** A prompt turn finished: {@code {"stopReason":"end_turn"|"cancelled"|...}}. */
    public static final String TURN_END = "turn_end";
    /** A subagent started or stopped: {@code {"sessionId","title","description","state":"running"|"idle","stopReason"?}}. */
    public static final String SUBAGENT = "subagent";
    /** A record of the subagent {@code sessionId}'s own session: {@code {"sessionId","record":{"type":...,...}}}. */
    public static final String CHILD_RECORD = "child_record";

    private RecordTypes() {}

    public static boolean isTitle(ObjectNode record) {
        return TITLE.equals(record.path("type").asText());
    }

    /** The title a {@link #TITLE} record sets (null if it has no text). */
    public static String titleText(ObjectNode titleRecord) {
        return titleRecord.path("text").textValue();
    }
}
