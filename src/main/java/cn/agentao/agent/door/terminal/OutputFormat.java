package cn.agentao.agent.door.terminal;

/** What {@code agent -p} writes on stdout. */
public enum OutputFormat {
    /** Only the answer, as it streams. */
    TEXT,
    /** One object at the end: sessionId, stopReason, text, usage (and what was denied, what failed). */
    JSON,
    /** One object per line: each session/update payload as it happens, then {@code {"type":"result", …}}. */
    STREAM_JSON;

    /** Picocli's spelling: {@code text}, {@code json}, {@code stream-json}. */
    @Override
    public String toString() { return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'); }

    public static OutputFormat parse(String value) {
        for (OutputFormat f : values()) if (f.toString().equalsIgnoreCase(value)) return f;
        throw new IllegalArgumentException("--output-format must be text, json or stream-json (got '" + value + "')");
    }
}
