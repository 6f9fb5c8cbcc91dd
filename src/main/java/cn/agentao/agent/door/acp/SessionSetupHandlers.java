package cn.agentao.agent.door.acp;

import cn.agentao.agent.core.SessionJournal;
import cn.agentao.agent.core.SessionReplay;
import cn.agentao.agent.core.StoreJournal;
import cn.agentao.agent.jsonrpc.ErrorCodes;
import cn.agentao.agent.jsonrpc.JsonRpcException;
import cn.agentao.agent.jsonrpc.RequestContext;
import cn.agentao.agent.util.Json;
import cn.agentao.agent.protocol.McpServerConfig;
import cn.agentao.agent.protocol.SessionUpdate;
import cn.agentao.agent.core.Session;
import cn.agentao.agent.core.repository.Page;
import cn.agentao.agent.core.repository.SessionBusyException;
import cn.agentao.agent.core.repository.SessionNotFoundException;
import cn.agentao.agent.core.repository.SessionStoreException;
import cn.agentao.agent.core.repository.SessionSummary;
import cn.agentao.agent.core.repository.SessionLease;
import cn.agentao.agent.core.repository.SessionRepository;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

/** session/new, load, resume, list, close and delete: a session's life, kept in the durable store. */
final class SessionSetupHandlers {
    private static final Logger log = LoggerFactory.getLogger(SessionSetupHandlers.class);
    static final int LIST_PAGE_SIZE = 50;

    private final AcpAgent agent;
    private final SessionRepository store;
    /** {@code --resume [ID]}: taken by the first session/new; null once used or when not asked for. */
    private final AtomicReference<String> pendingResume;

    SessionSetupHandlers(AcpAgent agent, SessionRepository store, String resume) {
        this.agent = agent;
        this.store = store;
        this.pendingResume = new AtomicReference<>(resume);
    }

    /** The validated common part of session/new, load and resume. */
    private record Setup(Path cwd, List<McpServerConfig> mcp, List<Path> extra) {}

    private static Setup setup(Params p, boolean mcpRequired) throws JsonRpcException {
        Path cwd = p.requireDirectory("cwd");
        List<McpServerConfig> mcp = mcpRequired || p.has("mcpServers")
                ? McpServerParser.parse(p.requireArray("mcpServers"), "mcpServers") : List.of();
        return new Setup(cwd, mcp, p.optionalDirectories("additionalDirectories"));
    }

    Object newSession(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        Setup s = setup(p, true);
        if (!agent.engine().configured(s.cwd())) throw agent.engine().authRequired();

        String resume = pendingResume.getAndSet(null);
        String resumeFailure = null;
        if (resume != null) {
            try {
                return resumeAtStartup(resume, s, ctx);
            } catch (SessionStoreException | JsonRpcException e) {
                String which = resume.isEmpty() ? "the latest session of " + s.cwd() : "session " + resume;
                resumeFailure = "--resume: " + which + " could not be reopened (" + e.getMessage()
                        + "); this is a new session.";
            }
        }
        Session session = new Session(UUID.randomUUID().toString(), s.cwd(), s.extra(), s.mcp());
        AcpSessionClient client = new AcpSessionClient(agent.endpoint(), session.id(), agent.clientCapabilities());
        SessionJournal journal;
        String unsaved = null;
        try {
            journal = new StoreJournal(store.create(session.id(), s.cwd(), header(s)));
        } catch (SessionStoreException e) {
            // an unusable store must not make the agent unusable: run this session without persistence, and say so
            journal = SessionJournal.NONE;
            unsaved = "This conversation is not being saved: " + e.getMessage() + ". To keep conversations, "
                    + store.relocateHint() + ".";
        }
        agent.engine().open(session, client, journal);
        if (resumeFailure != null) agent.engine().notice(session, resumeFailure);
        if (unsaved != null) agent.engine().notice(session, unsaved);
        agent.sessions().add(session);
        ctx.afterResponse(() -> agent.engine().announce(session));
        return describe(session);
    }

    /** --resume: reopens the latest session for the cwd, or the given id/prefix; throws when it cannot. */
    private Object resumeAtStartup(String idOrPrefix, Setup s, RequestContext ctx) throws JsonRpcException {
        String id;
        if (idOrPrefix.isEmpty()) {
            id = store.latestFor(s.cwd()).orElseThrow(() -> new SessionNotFoundException("(latest)",
                    "there is no saved session for this directory"));
        } else {
            id = store.resolvePrefix(idOrPrefix);
        }
        return open(id, s, ctx, true);
    }

    Object load(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        String id = p.requireNonEmptyString("sessionId");
        return open(id, setup(p, true), ctx, true);
    }

    Object resume(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        String id = p.requireNonEmptyString("sessionId");
        return open(id, setup(p, false), ctx, false);
    }

    /**
     * Reopens a saved session: takes its lock (refused while it is live anywhere), restores model, mode,
     * permissions and history, replays the conversation when asked, and only then registers and answers.
     */
    private Object open(String id, Setup s, RequestContext ctx, boolean replay) throws JsonRpcException {
        if (agent.sessions().isLive(id)) throw JsonRpcException.invalidRequest("session " + id + " is already open");
        SessionLease writer;
        try {
            writer = store.lease(id);
        } catch (SessionNotFoundException | IllegalArgumentException e) { // IAE: not an id the store can hold
            throw JsonRpcException.invalidRequest("unknown sessionId: " + id);
        } catch (SessionBusyException e) {
            throw JsonRpcException.invalidRequest("session " + id + " is open in another agent process");
        } catch (SessionStoreException e) {
            throw JsonRpcException.invalidRequest("session " + id + " cannot be read: " + e.getMessage());
        }
        try {
            SessionReplay.Restored restored = SessionReplay.restore(store, id);
            Session session = new Session(id, s.cwd(), s.extra(), s.mcp());
            AcpSessionClient client = new AcpSessionClient(agent.endpoint(), id, agent.clientCapabilities());
            agent.engine().openRestored(session, client, new StoreJournal(writer), restored);
            if (replay) {
                for (SessionUpdate u : restored.updates()) client.update(u);
                if (session.title() != null) client.update(new SessionUpdate.SessionInfoUpdate(session.title(), null));
            }
            if (!agent.sessions().addIfAbsent(session)) {
                agent.engine().release(id);
                throw JsonRpcException.invalidRequest("session " + id + " is already open");
            }
            ctx.afterResponse(() -> agent.engine().announce(session));
            return describe(session);
        } catch (RuntimeException e) {
            agent.engine().release(id);
            writer.close();
            log.error("session {} could not be restored", id, e);
            throw JsonRpcException.invalidRequest("session " + id + " cannot be restored: " + e.getClass().getSimpleName());
        }
    }

    Object list(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        String cwdText = p.optionalString("cwd");
        Path cwd = cwdText == null ? null : Params.directory(cwdText, "cwd");
        String cursor = p.optionalString("cursor");
        Page<SessionSummary> page;
        try {
            page = store.list(cwd, cursor, LIST_PAGE_SIZE);
        } catch (IllegalArgumentException e) {
            throw JsonRpcException.invalidParams("cursor is not one this agent gave out");
        } catch (SessionStoreException e) {
            throw new JsonRpcException(ErrorCodes.INTERNAL_ERROR, e.getMessage() + "; " + store.relocateHint());
        }
        ObjectNode result = Json.object();
        ArrayNode sessions = result.putArray("sessions");
        for (SessionSummary s : page.items()) {
            if (s.cwd() == null) { // ACP requires a cwd: a session whose header is unreadable cannot be offered
                log.warn("session/list: leaving out {} ({}); `agent sessions list` shows it", s.sessionId(), s.problem());
                continue;
            }
            ObjectNode o = sessions.addObject().put("sessionId", s.sessionId()).put("cwd", s.cwd().toString());
            // an unreadable session is still listed, with the reason (loading it answers the same reason)
            String title = s.readable() ? s.title() : "Unreadable: " + s.problem();
            if (title != null) o.put("title", title);
            if (s.updatedAt() != null) o.put("updatedAt", s.updatedAt().toString());
        }
        if (page.nextCursor() != null) result.put("nextCursor", page.nextCursor());
        return result;
    }

    Object close(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        String id = p.requireNonEmptyString("sessionId");
        Session session = agent.sessions().remove(id);
        if (session == null) throw JsonRpcException.invalidRequest("unknown sessionId: " + id);
        session.close();
        agent.engine().release(id);
        return Json.object();
    }

    Object delete(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        String id = p.requireNonEmptyString("sessionId");
        Session live = agent.sessions().remove(id);
        if (live != null) {
            live.close();
            agent.engine().release(id);
        }
        try {
            if (!store.delete(id)) throw JsonRpcException.invalidRequest("unknown sessionId: " + id);
        } catch (SessionBusyException e) {
            throw JsonRpcException.invalidRequest("session " + id + " is open in another agent process");
        } catch (SessionStoreException e) {
            throw JsonRpcException.invalidRequest("session " + id + " cannot be deleted: " + e.getMessage());
        } catch (IllegalArgumentException e) { // not an id the store can hold
            throw JsonRpcException.invalidRequest("unknown sessionId: " + id);
        }
        return Json.object();
    }

    /** What the store's header keeps besides id and cwd: the extra roots and the MCP servers' names (never their secrets). */
    private static ObjectNode header(Setup s) {
        ObjectNode h = Json.object();
        ArrayNode roots = h.putArray("additionalDirectories");
        s.extra().forEach(d -> roots.add(d.toString()));
        ArrayNode mcp = h.putArray("mcpServers");
        s.mcp().forEach(m -> mcp.addObject().put("name", m.name()).put("type", m.type()));
        return h;
    }

    /** The part of session/new, load and resume answers that describes the session's settings. */
    ObjectNode describe(Session session) {
        ObjectNode result = Json.object();
        result.put("sessionId", session.id());
        result.set("modes", Json.MAPPER.valueToTree(agent.engine().modes(session)));
        result.set("configOptions", Json.MAPPER.valueToTree(agent.engine().configOptions(session)));
        return result;
    }
}
