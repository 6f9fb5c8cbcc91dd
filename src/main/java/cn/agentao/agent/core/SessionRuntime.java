package cn.agentao.agent.core;

import cn.agentao.agent.childenv.ChildEnvironment;
import cn.agentao.agent.connect.mcp.McpServerSet;
import cn.agentao.agent.permission.PermissionMemory;
import cn.agentao.agent.core.Session;

/** What the engine keeps for a live session: its settings, its client, and its conversation. */
public final class SessionRuntime {
    private final Session session;
    private final SessionClient client;
    private final Conversation conversation = new Conversation();
    private final SessionJournal journal;
    private volatile PermissionMemory permissions = new PermissionMemory();
    private final java.util.function.Consumer<SessionRuntime> stateSaver;
    private volatile boolean titled;
    private volatile McpServerSet mcp;
    private volatile ChildEnvironment children;
    private volatile cn.agentao.agent.connect.mcp.ProjectMcpFile pendingTrustQuestion;
    private final java.util.List<String> pendingNotices = new java.util.ArrayList<>();
    private boolean announced;
    private final java.util.concurrent.atomic.AtomicBoolean sandboxTold = new java.util.concurrent.atomic.AtomicBoolean();

    private volatile UsageTotals usage = UsageTotals.NONE;

    /** Tokens and cost so far (restored sessions included). */
    public UsageTotals usage() { return usage; }

    void usage(UsageTotals totals) { this.usage = totals; }

    SessionRuntime(Session session, SessionClient client, SessionJournal journal, java.util.function.Consumer<SessionRuntime> stateSaver) {
        this.session = session;
        this.client = client;
        this.journal = journal;
        this.stateSaver = stateSaver;
    }

    /** The session's remembered allow/reject-always answers. */
    public PermissionMemory permissions() { return permissions; }

    void permissions(PermissionMemory restored) { this.permissions = restored; }

    /** Records the settings (model, mode, remembered permissions) so a load restores them. */
    public void saveState() { stateSaver.accept(this); }

    public SessionJournal journal() { return journal; }

    public Session session() { return session; }
    public SessionClient client() { return client; }
    public Conversation conversation() { return conversation; }

    /** The session's MCP servers, or null when it has none. */
    public McpServerSet mcp() { return mcp; }

    void mcp(McpServerSet servers) { this.mcp = servers; }

    /** The environment of the session's commands and stdio MCP servers. */
    public ChildEnvironment children() {
        ChildEnvironment c = children;
        return c != null ? c : ChildEnvironment.ofAgent(session.cwd() == null ? java.util.List.of() : java.util.List.of(session.cwd()));
    }

    void children(ChildEnvironment environment) { this.children = environment; }

    /** The project's {@code .agent/mcp.json} to ask about once the client knows the session, or null. */
    cn.agentao.agent.connect.mcp.ProjectMcpFile pendingTrustQuestion() { return pendingTrustQuestion; }

    void pendingTrustQuestion(cn.agentao.agent.connect.mcp.ProjectMcpFile file) { this.pendingTrustQuestion = file; }

    synchronized cn.agentao.agent.connect.mcp.ProjectMcpFile takePendingTrustQuestion() {
        cn.agentao.agent.connect.mcp.ProjectMcpFile f = pendingTrustQuestion;
        pendingTrustQuestion = null;
        return f;
    }

    /** Notices wait until the client knows the session; returns true when it may be told at once. */
    synchronized boolean queueNoticeUnlessAnnounced(String text) {
        if (announced) return true;
        pendingNotices.add(text);
        return false;
    }

    /** Marks the session known to the client; returns the notices that waited for that. */
    synchronized java.util.List<String> markAnnounced() {
        announced = true;
        java.util.List<String> out = java.util.List.copyOf(pendingNotices);
        pendingNotices.clear();
        return out;
    }

    synchronized boolean announced() { return announced; }

    /** A message for the user outside any answer (a server that failed, a bad config file); logged as well. */
    void notice(String text) {
        org.slf4j.LoggerFactory.getLogger(SessionRuntime.class).warn("session {}: {}", session.id(), text);
        if (queueNoticeUnlessAnnounced(text)) showNotice(text);
    }

    /** A {@code notice} update for clients that show them, else a warning line in the agent's message. */
    void showNotice(String text) {
        client.update(client.capabilities().notices() ? cn.agentao.agent.protocol.SessionUpdate.Notice.warning(text)
                : cn.agentao.agent.protocol.SessionUpdate.AgentMessageChunk.text("⚠ " + text + "\n"));
    }

    /** True the first time it is called: the session's first command says how commands are sandboxed. */
    boolean claimSandboxStatus() { return sandboxTold.compareAndSet(false, true); }

    /** True the first time it is called: the session gets its title from its first prompt. */
    boolean claimTitle() {
        if (titled || session.title() != null) return false;
        titled = true;
        return true;
    }
}
