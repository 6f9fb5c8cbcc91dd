package cn.agentao.agent.core.content;

import com.fasterxml.jackson.annotation.JsonValue;

/** ACP tool categories; clients choose icons by them. */
public enum ToolKind {
    READ("read"), EDIT("edit"), DELETE("delete"), MOVE("move"), SEARCH("search"),
    EXECUTE("execute"), THINK("think"), FETCH("fetch"), SWITCH_MODE("switch_mode"), OTHER("other");

    private final String wire;

    ToolKind(String wire) { this.wire = wire; }

    @JsonValue
    public String wire() { return wire; }
}
