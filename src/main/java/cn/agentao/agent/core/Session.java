package cn.agentao.agent.core;

import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.protocol.McpServerConfig;
import cn.agentao.agent.util.CancellationSource;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One conversation as this process holds it: where it works, its settings, and its turn slot. At most one
 * turn runs at a time; sessions are independent of each other.
 */
public final class Session {

    private final String id;
    private final Path cwd;
    private final List<Path> additionalDirectories;
    private volatile List<McpServerConfig> mcpServers;
    private volatile String modeId = Mode.DEFAULT.id();
    private volatile Mode permissionMode = Mode.DEFAULT;
    private volatile String model;
    private volatile String thoughtLevel;
    private volatile String title;
    private final AtomicReference<Turn> activeTurn = new AtomicReference<>();
    private volatile boolean closed;

    public Session(String id, Path cwd, List<Path> additionalDirectories, List<McpServerConfig> mcpServers) {
        this.id = id;
        this.cwd = cwd;
        this.additionalDirectories = List.copyOf(additionalDirectories);
        this.mcpServers = List.copyOf(mcpServers);
    }

    public String id() { return id; }
    public Path cwd() { return cwd; }
    public List<Path> additionalDirectories() { return additionalDirectories; }
    public List<McpServerConfig> mcpServers() { return mcpServers; }
    public void mcpServers(List<McpServerConfig> servers) { this.mcpServers = List.copyOf(servers); }
    public String modeId() { return modeId; }
    public void modeId(String modeId) { this.modeId = modeId; }
    /** The permission preset in force: the last preset mode set (a non-preset mode id leaves it as it was). */
    public Mode permissionMode() { return permissionMode; }
    public void permissionMode(Mode mode) { this.permissionMode = mode; }
    public String model() { return model; }
    public void model(String model) { this.model = model; }
    public String thoughtLevel() { return thoughtLevel; }
    public void thoughtLevel(String level) { this.thoughtLevel = level; }
    public String title() { return title; }
    public void title(String title) { this.title = title; }
    public boolean isClosed() { return closed; }

    /** A running turn: its cancellation. */
    public static final class Turn {
        private final CancellationSource cancellation = new CancellationSource();
        public CancellationSource cancellation() { return cancellation; }
    }

    /** Reserves the turn slot, or returns null when a turn is already running. */
    public Turn tryBeginTurn() {
        Turn turn = new Turn();
        return activeTurn.compareAndSet(null, turn) ? turn : null;
    }

    public void endTurn(Turn turn) {
        activeTurn.compareAndSet(turn, null);
    }

    public boolean hasActiveTurn() { return activeTurn.get() != null; }

    /** Cancels the running turn, if any; a cancel with nothing running leaves no trace. */
    public boolean cancelTurn() {
        Turn turn = activeTurn.get();
        if (turn == null) return false;
        turn.cancellation().cancel();
        return true;
    }

    /** Marks the session closed and cancels its turn. */
    public void close() {
        closed = true;
        cancelTurn();
    }
}
