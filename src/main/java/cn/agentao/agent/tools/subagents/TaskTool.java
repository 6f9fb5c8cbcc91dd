package cn.agentao.agent.tools.subagents;

import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolKind;
import cn.agentao.agent.core.tool.Connector;
import cn.agentao.agent.core.tool.ConnectorSession;
import cn.agentao.agent.core.tool.Subagents;
import cn.agentao.agent.core.tool.Tool;
import cn.agentao.agent.core.tool.ToolArgs;
import cn.agentao.agent.core.tool.ToolContext;
import cn.agentao.agent.core.tool.ToolException;
import cn.agentao.agent.core.tool.ToolInvocation;
import cn.agentao.agent.core.tool.ToolProgress;
import cn.agentao.agent.core.tool.ToolResult;
import cn.agentao.agent.core.tool.ToolSchemas;
import cn.agentao.agent.core.tool.ToolSource;
import cn.agentao.agent.permission.PermissionRequest;
import cn.agentao.agent.subagents.AgentCatalog;
import cn.agentao.agent.subagents.AgentDefinition;
import cn.agentao.agent.util.Cancellation;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolSpecification;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Subagents for every session: the {@code task} tool, which runs one of the session's agents (the built-ins and the
 * definitions found by {@link AgentCatalog}, on first use) as a child session and returns its final answer. Not
 * offered inside a child. {@code docs/subagents.md} describes it.
 */
public final class TaskTool implements Connector {
    public static final String NAME = Subagents.TOOL;
    /** The prefix of Agentao's form: {@code agent_NAME}, one tool per agent. */
    public static final String PER_AGENT_PREFIX = "agent_";

    /**
     * How the model is offered the agents ({@code config.json} {@code "subagents": {"tools": ...}}): {@code task}
     * (the default: one tool, the agent as an argument), {@code per-agent} (Agentao's: a tool {@code agent_NAME} per
     * agent, taking {@code task}), or {@code both}.
     */
    public enum Form {
        TASK("task"), PER_AGENT("per-agent"), BOTH("both");
        private final String id;

        Form(String id) { this.id = id; }

        boolean task() { return this != PER_AGENT; }

        boolean perAgent() { return this != TASK; }

        /** The form {@code config.json} chooses; a value that is none of them gives an error naming the choices. */
        public static Form from(cn.agentao.agent.config.ConfigJson config) {
            JsonNode v = config.section("subagents").path("tools");
            if (v.isMissingNode() || v.isNull()) return TASK;
            for (Form f : values()) if (f.id.equals(v.asText())) return f;
            throw new IllegalArgumentException(config.name() + ": subagents.tools is " + v + "; it must be \"task\", "
                    + "\"per-agent\" or \"both\"");
        }
    }

    private final Path configDir;
    private final Form form;
    private final String problem;

    /** @param configDir the user's config directory, whose {@code agents/} holds the user's definitions (null: none) */
    public TaskTool(Path configDir) { this(configDir, Form.TASK, null); }

    /**
     * @param form    how the agents are offered
     * @param problem what was wrong with the configured form (told to each session once; {@code form} is then the default)
     */
    public TaskTool(Path configDir, Form form, String problem) {
        this.configDir = configDir;
        this.form = form;
        this.problem = problem;
    }

    /** The subagents of {@code config}: its user's definitions, in the form its {@code config.json} chooses. */
    public static TaskTool of(cn.agentao.agent.config.AgentConfig config) {
        try {
            return new TaskTool(config.configDir(), Form.from(config.userJson()), null);
        } catch (IllegalArgumentException e) {
            return new TaskTool(config.configDir(), Form.TASK, e.getMessage() + "; the task tool is offered");
        }
    }

    @Override
    public void open(ConnectorSession session) {
        Subagents runner = session.subagents();
        if (!runner.available()) return;
        Supplier<AgentCatalog> agents = new Supplier<>() {
            private volatile AgentCatalog found;

            @Override
            public AgentCatalog get() {
                AgentCatalog c = found;
                if (c != null) return c;
                synchronized (this) {
                    if (found == null) {
                        found = AgentCatalog.discover(session.cwd(), configDir, session.projectTrusted());
                        found.notices().forEach(session::notice);
                    }
                    return found;
                }
            }
        };
        if (problem != null) session.notice(problem);
        session.addToolSource(new Source(new Task(agents, runner), agents, runner, form));
    }

    /** Agentao's name for an agent's own tool: {@code agent_} and its name, {@code -} and {@code .} as {@code _}. */
    static String perAgentName(AgentDefinition agent) {
        return PER_AGENT_PREFIX + agent.name().replace('-', '_').replace('.', '_');
    }

    private record Source(Task task, Supplier<AgentCatalog> agents, Subagents runner, Form form) implements ToolSource {
        @Override public String name() { return "subagents"; }

        @Override
        public List<ToolSpecification> specifications() {
            List<Tool> tools = new java.util.ArrayList<>();
            if (form.task()) tools.add(task);
            if (form.perAgent()) agents.get().all().forEach(a -> tools.add(new PerAgent(a, runner)));
            return tools.stream().map(t -> ToolSpecification.builder().name(t.name()).description(t.description())
                    .parameters(ToolSchemas.objectSchema(t.inputSchema())).build()).toList();
        }

        @Override
        public Optional<Tool> tool(String name) {
            if (form.task() && NAME.equals(name)) return Optional.of(task);
            if (!form.perAgent() || !name.startsWith(PER_AGENT_PREFIX)) return Optional.empty();
            return agents.get().all().stream().filter(a -> perAgentName(a).equals(name)).findFirst()
                    .map(a -> new PerAgent(a, runner));
        }
    }

    /** Agentao's form: one agent as a tool of its own, its task the one argument. */
    private record PerAgent(AgentDefinition agent, Subagents runner) implements Subagents.Starter {
        private static final ObjectNode SCHEMA = ToolArgs.schema("""
                {"type":"object","properties":{
                  "task":{"type":"string","description":"The task to delegate to this agent, complete on its own: it sees nothing of this conversation but this text. Say what to find or do and what to report back."}
                },"required":["task"],"additionalProperties":false}""");

        @Override public String name() { return perAgentName(agent); }

        @Override
        public String description() {
            return "Start the subagent " + agent.name() + ", which works alone with its own context and returns only its "
                    + "final answer: " + agent.description()
                    + (agent.tools().isEmpty() ? "" : " (tools: " + String.join(", ", agent.tools()) + ")");
        }

        @Override public ObjectNode inputSchema() { return SCHEMA.deepCopy(); }

        @Override public ToolKind kind() { return ToolKind.THINK; }

        @Override
        public ToolInvocation prepare(JsonNode raw, ToolContext ctx) throws ToolException {
            ObjectNode args = ToolArgs.check(name(), raw, SCHEMA);
            String prompt = args.get("task").asText().strip();
            if (prompt.isEmpty()) throw new ToolException(name() + ": task is empty; give the agent its task");
            return new Run(runner, agent, "", prompt, ctx.cancellation());
        }
    }

    /** {@code task}: one agent, one task, its final answer. */
    static final class Task implements Subagents.Starter {
        private static final ObjectNode SCHEMA = ToolArgs.schema("""
                {"type":"object","properties":{
                  "agent":{"type":"string","description":"The agent to run, by name (listed in this tool's description)."},
                  "description":{"type":"string","description":"What the agent is to do, in 3-8 words, shown to the user."},
                  "prompt":{"type":"string","description":"The task, complete on its own: the agent sees nothing of this conversation but this text. Say what to find or do and what to report back."}
                },"required":["agent","description","prompt"],"additionalProperties":false}""");
        private final Supplier<AgentCatalog> agents;
        private final Subagents runner;

        Task(Supplier<AgentCatalog> agents, Subagents runner) {
            this.agents = agents;
            this.runner = runner;
        }

        @Override public String name() { return NAME; }

        @Override
        public String description() {
            StringBuilder sb = new StringBuilder("""
                    Start a subagent: a separate agent with its own context that works on one task with its own tools and \
                    returns only its final answer (its steps do not fill your context). Use it for a self-contained piece \
                    of work, such as a broad search of the codebase or an independent change, and run several at once \
                    for independent tasks. The agent knows nothing of this conversation: give it everything it needs in \
                    `prompt`, and say what to report. Check what it reports before you rely on it. The agents:
                    """);
            for (AgentDefinition a : agents.get().all()) {
                sb.append("- ").append(a.name()).append(": ").append(a.description())
                        .append(a.tools().isEmpty() ? "" : " (tools: " + String.join(", ", a.tools()) + ")").append('\n');
            }
            return sb.toString();
        }

        @Override public ObjectNode inputSchema() { return SCHEMA.deepCopy(); }

        @Override public ToolKind kind() { return ToolKind.THINK; }

        @Override
        public ToolInvocation prepare(JsonNode raw, ToolContext ctx) throws ToolException {
            ObjectNode args = ToolArgs.check(NAME, raw, SCHEMA);
            String name = args.get("agent").asText().strip();
            AgentDefinition agent = agents.get().find(name).orElseThrow(() -> new ToolException(NAME + ": there is no agent '" + name
                    + "'; the agents are: " + String.join(", ", agents.get().all().stream().map(AgentDefinition::name).toList())));
            String prompt = args.get("prompt").asText().strip();
            if (prompt.isEmpty()) throw new ToolException(NAME + ": prompt is empty; give the agent its task");
            String description = args.get("description").asText().strip().replaceAll("\\s+", " ");
            return new Run(runner, agent, description, prompt, ctx.cancellation());
        }
    }

    private record Run(Subagents runner, AgentDefinition agent, String description, String prompt, Cancellation cancel)
            implements ToolInvocation {
        @Override
        public String title() {
            return "Agent " + agent.name() + (description.isEmpty() ? "" : ": " + (description.length() > 80 ? description.substring(0, 79) + "…" : description));
        }

        @Override public List<ToolCallLocation> locations() { return List.of(); }

        /** Starting it needs no question: each of the agent's own calls is judged (and asked about) as the parent's are. */
        @Override
        public PermissionRequest permission() { return new PermissionRequest.Generic(NAME, true, false, false); }

        @Override
        public ToolResult run(ToolProgress progress) {
            Subagents.Outcome out = runner.run(new Subagents.Brief(agent.name(), agent.instructions(), agent.tools(), agent.model(),
                    agent.maxTurns(), agent.readOnly()), description, prompt, cancel, progress);
            if (out.cancelled()) return ToolResult.error("The agent " + agent.name() + " was cancelled.");
            String answer = out.answer().isEmpty() ? "(The agent gave no answer.)" : out.answer();
            if (out.stopped() == null) {
                return new ToolResult(answer, List.of(ToolCallContent.text(answer)), false, null);
            }
            String text = "The agent " + agent.name() + " stopped before it finished: " + out.stopped() + ". What it said last:\n\n" + answer;
            return new ToolResult(text, List.of(ToolCallContent.text(text)), true, null);
        }
    }
}
