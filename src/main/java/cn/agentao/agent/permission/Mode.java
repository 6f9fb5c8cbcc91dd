package cn.agentao.agent.permission;

import java.util.Arrays;
import java.util.Optional;

/** The permission presets a session can be in; their ids are the ACP {@code modes}. */
public enum Mode {
    READ_ONLY("read-only", "Read only",
            "Reads; commands run in a read-only sandbox without asking (without a sandbox: read-only commands only); "
                    + "every write is refused."),
    WORKSPACE_WRITE("workspace-write", "Workspace write",
            "Edits files inside the workspace; commands run in a sandbox that can write only the workspace, without "
                    + "asking, and ask to run outside it when they need more; never runs sudo or rm -rf."),
    FULL_ACCESS("full-access", "Full access",
            "Runs anything, without a sandbox, except unrecoverable commands; still asks before touching paths "
                    + "outside the workspace."),
    PLAN("plan", "Plan",
            "Reads and plans without changing anything; commands run in a read-only sandbox, writes are refused.");

    /** The mode a new session starts in. */
    public static final Mode DEFAULT = WORKSPACE_WRITE;

    private final String id;
    private final String displayName;
    private final String description;

    Mode(String id, String displayName, String description) {
        this.id = id;
        this.displayName = displayName;
        this.description = description;
    }

    public String id() { return id; }

    public String displayName() { return displayName; }

    public String description() { return description; }

    /** True for the modes in which nothing may be changed. */
    public boolean isReadOnly() { return this == READ_ONLY || this == PLAN; }

    public static Optional<Mode> fromId(String id) {
        return Arrays.stream(values()).filter(m -> m.id.equals(id)).findFirst();
    }

}
