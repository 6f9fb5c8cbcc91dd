package cn.agentao.agent.core.host;

/** One answer to an {@link ApprovalRequest}: its id, the label to show, and what kind of answer it is. */
public record ApprovalOption(String optionId, String name, Kind kind) {

    public enum Kind {
        ALLOW_ONCE("allow_once"), ALLOW_ALWAYS("allow_always"), REJECT_ONCE("reject_once"), REJECT_ALWAYS("reject_always");

        private final String wire;

        Kind(String wire) { this.wire = wire; }

        /** The ACP spelling, also the option id of the standard tool-call options. */
        public String wire() { return wire; }

        public boolean allows() { return this == ALLOW_ONCE || this == ALLOW_ALWAYS; }
    }

    /** The standard option of {@code kind} for a tool call: its id is the kind's wire name. */
    public static ApprovalOption of(Kind kind, String name) {
        return new ApprovalOption(kind.wire(), name, kind);
    }
}
