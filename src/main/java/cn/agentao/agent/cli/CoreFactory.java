package cn.agentao.agent.cli;

import cn.agentao.agent.connect.a2a.RemoteAgents;
import cn.agentao.agent.connect.smcp.SmcpToolSource;
import cn.agentao.agent.core.Engine;
import cn.agentao.agent.hooks.CommandHooks;
import cn.agentao.agent.connect.mcp.McpStartup;
import cn.agentao.agent.tools.user.SaveMemoryTool;
import cn.agentao.agent.trust.TrustedProjects;
import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.core.tool.ToolSource;
import cn.agentao.agent.config.AgentConfig;

import java.nio.file.Path;
import java.util.Map;

/**
 * The one place the process's core is built, for every front door (ACP, terminal, A2A, Agora): the engine with the
 * built-in tools, the session repository, the {@link SessionService}, and the process-wide tool sources. A door's
 * launcher calls {@link #create} and hands the service to its door; nothing else builds an Engine.
 */
public final class CoreFactory {
    private CoreFactory() {}

    /** The core for this process; the repository is {@link SessionRepositories#open}'s choice. */
    public static SessionService create(Map<String, String> env, Path sessionsDir) {
        return create(AgentConfig.load(env, new AgentConfig.CommandLine(sessionsDir, null, null)));
    }

    /** The core for this configuration, read once and handed to each part as its section. */
    public static SessionService create(AgentConfig config) {
        Path configDir = config.configDir();
        Engine engine = new Engine(config, ToolCalls.create(config));
        SessionService sessions = new SessionService(engine, SessionRepositories.open(config.store()));
        addToolSources(sessions, config);
        CommandHooks.register(sessions, configDir, TrustedProjects.in(configDir)); // the user's hooks, read when first needed
        return sessions;
    }

    /**
     * The connectors every session of the process asks after the built-ins, one line per connector (each reads
     * its own part of the configuration and connects lazily, never before {@code initialize} is answered).
     */
    private static void addToolSources(SessionService sessions, AgentConfig config) {
        Map<String, String> env = config.environment(); // MCP servers' ${VAR} references
        // one line per connector (Agora's editor tools are registered for ACP sessions only: see AcpLaunch)
        SmcpToolSource.register(sessions, config); // the A2C-SMCP office of config.json, if any
        RemoteAgents.register(sessions, config);   // config.json "a2aAgents": remote agents as tools
        ToolSource remember = SaveMemoryTool.source(sessions.engine().memory()); // save_memory: the user's own doors only
        sessions.addConnector(s -> { if (s.host().keepsMemory()) s.addToolSource(remember); });
        sessions.addConnector(new McpStartup(env, TrustedProjects.in(config.configDir()))); // each session's MCP servers
        sessions.addConnector(new cn.agentao.agent.tools.skills.SkillTools()); // activate_skill and /skill-name
        sessions.addConnector(cn.agentao.agent.tools.subagents.TaskTool.of(config)); // task (or agent_NAME): subagents
    }
}
