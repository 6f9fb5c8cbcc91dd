package cn.agentao.agent.acp;

import cn.agentao.agent.engine.SessionReplay;
import cn.agentao.agent.engine.StoreJournal;
import cn.agentao.agent.jsonrpc.JsonRpcException;
import cn.agentao.agent.jsonrpc.RequestContext;
import cn.agentao.agent.protocol.Json;
import cn.agentao.agent.protocol.McpServerConfig;
import cn.agentao.agent.protocol.SessionUpdate;
import cn.agentao.agent.session.Session;
import cn.agentao.agent.store.Page;
import cn.agentao.agent.store.RecordTypes;
import cn.agentao.agent.store.SessionBusyException;
import cn.agentao.agent.store.SessionNotFoundException;
import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.store.SessionStoreException;
import cn.agentao.agent.store.SessionSummary;
import cn.agentao.agent.store.SessionWriter;
import cn.agentao.agent.store.StoredSession;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

/** session/new, load, resume, list, close and delete: a session's life, kept in the durable store. */
final class SessionSetupHandlers {
    private static final Logger log = LoggerFactory.getLogger(SessionSetupHandlers.class);
    static final int LIST_PAGE_SIZE = 50;

    private final AcpAgent agent;
    private final SessionStore store;
    /** {@code --resume [ID]}: taken by the first session/new; null once used or when not asked for. */
    private final AtomicReference<String> pendingResume;

    SessionSetupHandlers(AcpAgent agent, SessionStore store, String resume) {
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
        if (resume != null) {
            Object resumed = resumeAtStartup(resume, s, ctx);
            if (resumed != null) return resumed;
        }
        Session session = new Session(UUID.randomUUID().toString(), s.cwd(), s.extra(), s.mcp());
        SessionWriter writer;
        try {
            writer = store.create(session.id(), s.cwd(), header(s));
        } catch (SessionStoreException e) {
            log.error("cannot create session in the store: {}", e.toString());
            throw new JsonRpcException(cn.agentao.agent.jsonrpc.ErrorCodes.INTERNAL_ERROR,
                    "Internal error: cannot save sessions in " + store.directory() + " (" + e.getMessage() + ")");
        }
        AcpSessionClient client = new AcpSessionClient(agent.endpoint(), session.id(), agent.clientCapabilities());
        agent.engine().open(session, client, new StoreJournal(writer));
        agent.sessions().add(session);
        ctx.afterResponse(() -> agent.engine().announce(session));
        return describe(session);
    }

    /** --resume: reopens the latest session for the cwd (or the given id/prefix); null falls back to a fresh one. */
    private Object resumeAtStartup(String idOrPrefix, Setup s, RequestContext ctx) {
        String id;
        try {
            if (idOrPrefix.isEmpty()) {
                Optional<String> latest = store.latestFor(s.cwd());
                if (latest.isEmpty()) {
                    log.warn("--resume: no saved session for {}; starting a new one", s.cwd());
                    return null;
                }
                id = latest.get();
            } else {
                id = store.resolvePrefix(idOrPrefix);
            }
            return open(id, s, ctx, true);
        } catch (SessionStoreException | JsonRpcException e) {
            log.warn("--resume {}: {}; starting a new session", idOrPrefix.isEmpty() ? "(latest)" : idOrPrefix, e.getMessage());
            return null;
        }
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
        SessionWriter writer;
        StoredSession stored;
        try {
            writer = store.openForAppend(id);
        } catch (SessionNotFoundException | IllegalArgumentException e) { // IAE: not an id the store can hold
            throw JsonRpcException.invalidRequest("unknown sessionId: " + id);
        } catch (SessionBusyException e) {
            throw JsonRpcException.invalidRequest("session " + id + " is open in another agent process");
        } catch (SessionStoreException e) {
            throw JsonRpcException.invalidRequest("session " + id + " cannot be read: " + e.getMessage());
        }
        try {
            stored = store.read(id);
            stored.warnings().forEach(w -> log.warn("session {}: {}", id, w));
            SessionReplay.Restored restored = SessionReplay.restore(stored);
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
        }
        ObjectNode result = Json.object();
        ArrayNode sessions = result.putArray("sessions");
        for (SessionSummary s : page.items()) {
            ObjectNode o = sessions.addObject().put("sessionId", s.sessionId()).put("cwd", s.cwd().toString());
            if (s.title() != null) o.put("title", s.title());
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
