package cn.agentao.agent.core;

import cn.agentao.agent.cli.ToolCalls;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.store.SessionStore;
import cn.agentao.agent.store.SyncPolicy;
import cn.agentao.agent.testing.FakeModelServer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The core of an in-process test, built as the process builds it: the scripted model over HTTP, the real tools,
 * permission engine and session store, with HOME and the config directory inside {@code dir} and no OS sandbox.
 */
final class CoreFixture implements AutoCloseable {
    final FakeModelServer model;
    final SessionService sessions;
    final Path ws;
    final Path configDir;

    private CoreFixture(FakeModelServer model, SessionService sessions, Path ws, Path configDir) {
        this.model = model;
        this.sessions = sessions;
        this.ws = ws;
        this.configDir = configDir;
    }

    static CoreFixture start(Path dir) throws Exception {
        FakeModelServer model = FakeModelServer.start().whenEmptyFail();
        Map<String, String> env = environment(dir, model);
        Path configDir = ConfigLocations.userConfigDir(env);
        cn.agentao.agent.config.AgentConfig config = cn.agentao.agent.config.AgentConfig.load(env);
        Engine engine = new Engine(config, ToolCalls.create(config));
        SessionService sessions = new SessionService(engine, new SessionStore(dir.resolve("store"), SyncPolicy.NO_FSYNC));
        return new CoreFixture(model, sessions, Files.createDirectories(dir.resolve("ws")), configDir);
    }

    /** The process environment of such a core: {@code model}'s provider, HOME and config inside {@code dir}, no sandbox. */
    static Map<String, String> environment(Path dir, FakeModelServer model) {
        Map<String, String> env = new HashMap<>(model.openAiEnvironment());
        env.put("HOME", dir.resolve("home").toString());
        env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        env.put("AGENT_SANDBOX", "none");
        return env;
    }

    /** A new session in the workspace, ready (its held notices and command list sent to {@code host}). */
    Session open(FakeHost host) throws CoreException {
        Session s = sessions.create(SessionService.Spec.of(ws), id -> host);
        s.ready();
        return s;
    }

    static List<ContentBlock> text(String t) {
        return List.of(ContentBlock.text(t));
    }

    @Override
    public void close() {
        sessions.close();
        model.close();
    }
}
