package cn.agentao.agent.connect.smcp;

import cn.agentao.agent.config.AgentConfig;
import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.core.tool.Connector;
import cn.agentao.agent.core.tool.ToolSource;
import cn.agentao.agent.core.tool.Tool;
import dev.langchain4j.agent.tool.ToolSpecification;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.List;
import java.util.Optional;

/**
 * The Computers of an A2C-SMCP office as a tool source, shared by every session of the process (an office admits one
 * agent). The office is joined when a turn first asks for tools (nothing happens at start-up), and that first turn
 * waits a moment for the Computers' tools; the list then follows the office between model calls.
 */
public final class SmcpToolSource implements ToolSource {
    /** How long the first turn waits for the office (it goes on either way; tools arrive later). */
    static final Duration FIRST_WAIT = Duration.ofSeconds(5);

    private final SmcpOffice office;
    private volatile boolean started;

    public SmcpToolSource(SmcpOffice office) {
        this.office = office;
    }

    /**
     * Registers the office of the user's {@code config.json} (a project's files cannot name one) with
     * {@code sessions}; its notices go to every live session. A malformed {@code smcp} section is told to the
     * sessions instead (no office is joined).
     */
    public static void register(SessionService sessions, AgentConfig settings) {
        SmcpConfig.Result config = SmcpConfig.read(settings.userJson(), settings.environment()); // the token's variable
        Consumer<String> tellAll = text -> sessions.live().forEach(s -> s.notice(text));
        if (!config.problems().isEmpty()) {
            sessions.addConnector(Connector.shared(new ProblemsOnly(config.problems(), tellAll)));
            return;
        }
        config.config().ifPresent(c -> {
            SmcpOffice office = new SmcpOffice(c);
            office.addNoticeListener(tellAll);
            sessions.addConnector(Connector.shared(new SmcpToolSource(office)));
        });
    }

    /** A source with no tools that tells the configuration's problems at the first turn. */
    private static final class ProblemsOnly implements ToolSource {
        private final List<String> problems;
        private final Consumer<String> tell;
        private final AtomicBoolean told = new AtomicBoolean();

        ProblemsOnly(List<String> problems, Consumer<String> tell) {
            this.problems = problems;
            this.tell = tell;
        }

        @Override public String name() { return "smcp"; }

        @Override
        public List<ToolSpecification> specifications() {
            if (told.compareAndSet(false, true)) problems.forEach(p -> tell.accept("Configuration: " + p));
            return List.of();
        }

        @Override public Optional<Tool> tool(String name) { return Optional.empty(); }
    }

    public SmcpOffice office() { return office; }

    @Override
    public String name() {
        return "smcp:" + office.config().office();
    }

    @Override
    public List<ToolSpecification> specifications() {
        ensureStarted();
        return office.toolSpecifications();
    }

    @Override
    public Optional<Tool> tool(String name) {
        ensureStarted();
        return office.tool(name).map(t -> new SmcpToolAdapter(office, t));
    }

    private void ensureStarted() {
        if (started) return;
        synchronized (this) {
            if (started) return;
            office.start();
            office.awaitSettled(FIRST_WAIT);
            started = true;
        }
    }
}
