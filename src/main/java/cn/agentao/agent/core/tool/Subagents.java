package cn.agentao.agent.core.tool;

import cn.agentao.agent.util.Cancellation;

import java.util.List;

/**
 * Runs child sessions (subagents) of one session, for its {@code task} tool: each child has its own history, the
 * tools its brief names (never {@value #TOOL}: a child starts no children), at most {@code maxTurns} model calls, and
 * the parent's mode, sandbox and permissions, or a read-only mode. Its events stream into {@code progress}; its
 * approval questions reach the parent's user labelled with its name; the parent's cancellation ends it.
 */
public interface Subagents {
    /** The tool that starts a subagent. */
    String TOOL = "task";

    /**
     * What a child is: its name (shown with its questions), the instructions of its system prompt, its tools (empty:
     * all the parent's but {@value #TOOL}), its model (null: the parent's), its model-call limit, and whether it may
     * only read (it then runs in a read-only mode unless the parent's mode already is).
     */
    record Brief(String name, String instructions, List<String> tools, String model, int maxTurns, boolean readOnly) {
        public Brief {
            tools = List.copyOf(tools);
            if (maxTurns < 1) throw new IllegalArgumentException("maxTurns must be at least 1");
        }
    }

    /**
     * How a run ended: the child's final answer ({@code answer}; empty when it gave none), and, when it did not end
     * its turn normally, why ({@code stopped}: e.g. "it reached its limit of 10 model calls"); null when it did.
     */
    record Outcome(String answer, String stopped, boolean cancelled) {}

    /**
     * Marks a tool that starts a subagent: the turn runs consecutive calls of such tools in one model answer at once
     * (each child has its own context; every other call runs alone, in its order).
     */
    interface Starter extends Tool {}

    /** Whether this session may start children (false in a child). */
    boolean available();

    /**
     * Runs a child with {@code prompt} as its task; returns when it ends. {@code description} (a few words, may be
     * empty) is what the user sees of the task.
     */
    Outcome run(Brief brief, String description, String prompt, Cancellation cancel, ToolProgress progress);
}
