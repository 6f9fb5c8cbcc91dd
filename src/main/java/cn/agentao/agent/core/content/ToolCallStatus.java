package cn.agentao.agent.core.content;

import com.fasterxml.jackson.annotation.JsonValue;

public enum ToolCallStatus {
    PENDING("pending"), IN_PROGRESS("in_progress"), COMPLETED("completed"), FAILED("failed");

    private final String wire;

    ToolCallStatus(String wire) { this.wire = wire; }

    @JsonValue
    public String wire() { return wire; }

    public static ToolCallStatus fromWire(String s) {
        for (ToolCallStatus v : values()) if (v.wire.equals(s)) return v;
        throw new IllegalArgumentException("unknown tool call status: " + s);
    }
}
