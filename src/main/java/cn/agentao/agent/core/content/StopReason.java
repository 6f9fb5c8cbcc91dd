package cn.agentao.agent.core.content;

import com.fasterxml.jackson.annotation.JsonValue;

/** Why a prompt turn ended. When several apply, the lowest ordinal wins (cancelled first). */
public enum StopReason {
    CANCELLED("cancelled"), MAX_TURN_REQUESTS("max_turn_requests"), MAX_TOKENS("max_tokens"),
    REFUSAL("refusal"), END_TURN("end_turn");

    private final String wire;

    StopReason(String wire) { this.wire = wire; }

    @JsonValue
    public String wire() { return wire; }
}
