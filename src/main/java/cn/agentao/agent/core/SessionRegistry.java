package cn.agentao.agent.core;

import cn.agentao.agent.jsonrpc.ErrorCodes;
import cn.agentao.agent.jsonrpc.JsonRpcException;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;

/** The sessions live in this process, by id. */
public final class SessionRegistry {
    private final ConcurrentHashMap<String, Session> sessions = new ConcurrentHashMap<>();

    public void add(Session session) {
        sessions.put(session.id(), session);
    }

    /** Registers {@code session} unless one with its id is already live; returns false then. */
    public boolean addIfAbsent(Session session) {
        return sessions.putIfAbsent(session.id(), session) == null;
    }

    public Session find(String id) {
        return sessions.get(id);
    }

    public boolean isLive(String id) { return sessions.containsKey(id); }

    /** The live session with this id, or {@code -32600 "unknown sessionId: …"}. */
    public Session require(String id) throws JsonRpcException {
        Session s = sessions.get(id);
        if (s == null) throw new JsonRpcException(ErrorCodes.INVALID_REQUEST, "unknown sessionId: " + id);
        return s;
    }

    public Session remove(String id) {
        return sessions.remove(id);
    }

    public Collection<Session> all() { return sessions.values(); }
}
