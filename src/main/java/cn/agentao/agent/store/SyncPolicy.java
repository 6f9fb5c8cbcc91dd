package cn.agentao.agent.store;

/** How hard {@link SessionWriter#append} works to make each record durable before it returns. */
public enum SyncPolicy {
    /**
     * Every append is written and then forced to the storage device ({@code FileChannel.force(false)}): a
     * record survives a kill -9 of the agent, an OS crash and a power cut once {@code append} has returned.
     */
    FSYNC,
    /**
     * Every append is written to the operating system but not forced: a record survives a kill -9 of the agent
     * once {@code append} has returned, but an OS crash or power cut may lose the last few seconds. The log is
     * still forced when the writer is closed.
     */
    NO_FSYNC
}
