package cn.agentao.agent.door.acp;

import cn.agentao.agent.core.tool.McpServerConfig;
import cn.agentao.agent.core.CoreException;
import cn.agentao.agent.core.Session;
import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.door.acp.protocol.ConfigOption;
import cn.agentao.agent.door.acp.protocol.SessionUpdates;
import cn.agentao.agent.jsonrpc.JsonRpcException;
import cn.agentao.agent.jsonrpc.RequestContext;
import cn.agentao.agent.core.repository.Page;
import cn.agentao.agent.core.repository.SessionSummary;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/** session/new, load, resume, list, close and delete: ACP's words for what {@link SessionService} does. */
final class SessionSetupHandlers {
    private static final Logger log = LoggerFactory.getLogger(SessionSetupHandlers.class);
    static final int LIST_PAGE_SIZE = 50;

    private final AcpAgent agent;
    /** {@code --resume [ID]}: taken by the first session/new; null once used or when not asked for. */
    private final AtomicReference<String> pendingResume;

    SessionSetupHandlers(AcpAgent agent, String resume) {
        this.agent = agent;
        this.pendingResume = new AtomicReference<>(resume);
    }

    private SessionService sessions() { return agent.sessions(); }

    /** The validated common part of session/new, load and resume. */
    private static SessionService.Spec setup(Params p, boolean mcpRequired) throws JsonRpcException {
        Path cwd = p.requireDirectory("cwd");
        List<McpServerConfig> mcp = mcpRequired || p.has("mcpServers")
                ? McpServerParser.parse(p.requireArray("mcpServers"), "mcpServers") : List.of();
        return new SessionService.Spec(cwd, p.optionalDirectories("additionalDirectories"), mcp);
    }

    Object newSession(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        SessionService.Spec s = setup(p, true);
        agent.reloadIfLoginChanged();
        CoreErrors.translated(() -> {
            sessions().requireConfigured(s.cwd());
            return null;
        });

        String resume = pendingResume.getAndSet(null);
        String resumeFailure = null;
        if (resume != null) {
            try {
                return resumeAtStartup(resume, s, ctx);
            } catch (CoreException e) {
                String which = resume.isEmpty() ? "the latest session of " + s.cwd() : "session " + resume;
                resumeFailure = "--resume: " + which + " could not be reopened (" + e.getMessage()
                        + "); this is a new session.";
            }
        }
        Session session = CoreErrors.translated(() -> sessions().create(s, id -> agent.host(id)));
        if (resumeFailure != null) session.notice(resumeFailure);
        ctx.afterResponse(session::ready);
        return describe(session);
    }

    /** --resume: reopens the latest session for the cwd, or the given id/prefix; throws when it cannot. */
    private Object resumeAtStartup(String idOrPrefix, SessionService.Spec s, RequestContext ctx) throws CoreException {
        String id = idOrPrefix.isEmpty() ? sessions().latest(s.cwd()) : sessions().resolve(idOrPrefix);
        return open(id, s, ctx, true);
    }

    Object load(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        String id = p.requireNonEmptyString("sessionId");
        SessionService.Spec s = setup(p, true);
        return CoreErrors.translated(() -> open(id, s, ctx, true));
    }

    Object resume(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        String id = p.requireNonEmptyString("sessionId");
        SessionService.Spec s = setup(p, false);
        // already open on this connection (one ACP connection per process): resuming it again is a no-op that
        // succeeds, as clients retry resume after a reconnect or a timeout
        Session live = sessions().find(id).orElse(null);
        if (live != null) {
            if (!live.cwd().equals(s.cwd())) {
                throw JsonRpcException.invalidRequest("session " + id + " is already open here with cwd " + live.cwd());
            }
            return describe(live);
        }
        return CoreErrors.translated(() -> open(id, s, ctx, false));
    }

    /** Reopens a saved session (replayed as session/update when {@code replay}); answers once it is registered. */
    private Object open(String id, SessionService.Spec s, RequestContext ctx, boolean replay) throws CoreException {
        Session session = sessions().reopen(id, s, agent.host(id), replay);
        ctx.afterResponse(session::ready);
        return describe(session);
    }

    /**
     * {@code session/fork} (unstable): a new session with the history of {@code sessionId} up to now, saved at
     * once and independent afterwards (the parent may be open, here or elsewhere, or closed).
     */
    Object fork(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        String parentId = p.requireNonEmptyString("sessionId");
        SessionService.Spec s = setup(p, false);
        agent.reloadIfLoginChanged();
        Session session = CoreErrors.translated(() -> sessions().fork(parentId, s, id -> agent.host(id)));
        ctx.afterResponse(session::ready);
        return describe(session);
    }

    Object list(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        String cwdText = p.optionalString("cwd");
        Path cwd = cwdText == null ? null : Params.directory(cwdText, "cwd");
        String cursor = p.optionalString("cursor");
        Page<SessionSummary> page = CoreErrors.translated(() -> sessions().list(cwd, cursor, LIST_PAGE_SIZE));
        ObjectNode result = Json.object();
        ArrayNode list = result.putArray("sessions");
        for (SessionSummary s : page.items()) {
            if (s.cwd() == null) { // ACP requires a cwd: a session whose header is unreadable cannot be offered
                log.warn("session/list: leaving out {} ({}); `agent sessions list` shows it", s.sessionId(), s.problem());
                continue;
            }
            ObjectNode o = list.addObject().put("sessionId", s.sessionId()).put("cwd", s.cwd().toString());
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
        CoreErrors.translated(() -> {
            sessions().close(id);
            return null;
        });
        return Json.object();
    }

    Object delete(JsonNode raw, RequestContext ctx) throws JsonRpcException {
        Params p = Params.of(raw);
        String id = p.requireNonEmptyString("sessionId");
        CoreErrors.translated(() -> {
            sessions().delete(id);
            return null;
        });
        return Json.object();
    }

    /** The part of session/new, load and resume answers that describes the session's settings. */
    static ObjectNode describe(Session session) {
        ObjectNode result = Json.object();
        result.put("sessionId", session.id());
        result.set("modes", SessionUpdates.modes(session.modeId()).toTree());
        result.set("configOptions", ConfigOption.toTree(SessionUpdates.configOptions(session.settings())));
        return result;
    }
}
