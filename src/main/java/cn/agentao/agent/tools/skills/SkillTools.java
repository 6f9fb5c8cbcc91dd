package cn.agentao.agent.tools.skills;

import cn.agentao.agent.core.content.AvailableCommand;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolKind;
import cn.agentao.agent.core.tool.CommandSource;
import cn.agentao.agent.core.tool.Connector;
import cn.agentao.agent.core.tool.ConnectorSession;
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
import cn.agentao.agent.skills.Skill;
import cn.agentao.agent.skills.SkillCatalog;
import cn.agentao.agent.util.Cancellation;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolSpecification;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Skills for every session: the {@code activate_skill} tool (offered only when the session has skills) and one slash
 * command per skill ({@code /name args} runs a turn with the skill activated). The skills themselves are the
 * session's {@link SkillCatalog}, found on first use; {@code docs/skills.md} describes them.
 */
public final class SkillTools implements Connector {
    public static final String NAME = "activate_skill";

    @Override
    public void open(ConnectorSession session) {
        Supplier<SkillCatalog> skills = session::skills;
        session.addToolSource(new Source(new ActivateSkill(skills)));
        session.addCommands(new Commands(skills));
    }

    private record Source(ActivateSkill tool) implements ToolSource {
        @Override public String name() { return "skills"; }

        @Override
        public List<ToolSpecification> specifications() {
            if (tool.skills.get().isEmpty()) return List.of();
            return List.of(ToolSpecification.builder().name(NAME).description(tool.description())
                    .parameters(ToolSchemas.objectSchema(tool.inputSchema())).build());
        }

        @Override
        public Optional<Tool> tool(String name) {
            return NAME.equals(name) && !tool.skills.get().isEmpty() ? Optional.of(tool) : Optional.empty();
        }
    }

    /** {@code activate_skill}: a skill's instructions and the list of its files, or one of those files. */
    static final class ActivateSkill implements Tool {
        private static final ObjectNode SCHEMA = ToolArgs.schema("""
                {"type":"object","properties":{
                  "name":{"type":"string","description":"The skill's name, as listed in the system prompt."},
                  "file":{"type":"string","description":"Optional: a file of the skill's listing (path relative to the skill's folder) to read instead of its instructions."}
                },"required":["name"],"additionalProperties":false}""");
        final Supplier<SkillCatalog> skills;

        ActivateSkill(Supplier<SkillCatalog> skills) { this.skills = skills; }

        @Override public String name() { return NAME; }

        @Override
        public String description() {
            return "Load a skill's instructions (listed in the system prompt under Skills) and the list of the files in its "
                    + "folder; with `file`, read one of those files. Activate a skill when the task matches its description.";
        }

        @Override public ObjectNode inputSchema() { return SCHEMA.deepCopy(); }

        @Override public ToolKind kind() { return ToolKind.READ; }

        @Override
        public ToolInvocation prepare(JsonNode raw, ToolContext ctx) throws ToolException {
            ObjectNode args = ToolArgs.check(NAME, raw, SCHEMA);
            String name = args.get("name").asText().strip();
            Skill skill = skills.get().find(name).orElseThrow(() -> new ToolException(NAME + ": there is no skill '" + name
                    + "'; the skills are: " + String.join(", ", skills.get().all().stream().map(Skill::name).toList())));
            String file = args.hasNonNull("file") ? args.get("file").asText().strip() : null;
            return new Activation(skill, file == null || file.isEmpty() ? null : file);
        }
    }

    private record Activation(Skill skill, String file) implements ToolInvocation {
        @Override
        public String title() { return file == null ? "Activate skill " + skill.name() : "Read " + file + " of skill " + skill.name(); }

        @Override
        public List<ToolCallLocation> locations() {
            return List.of(new ToolCallLocation(file == null ? skill.file().toString() : skill.dir().resolve(file).toString(), null));
        }

        /** Read-only, and limited to the skill's own folder (see SkillCatalog.readFile): no question. */
        @Override
        public PermissionRequest permission() { return new PermissionRequest.Generic(NAME, true, false); }

        @Override
        public ToolResult run(ToolProgress progress) {
            try {
                return ToolResult.success(file == null ? SkillCatalog.activation(skill) : SkillCatalog.readFile(skill, file));
            } catch (IOException e) {
                return ToolResult.error(NAME + ": " + e.getMessage());
            }
        }
    }

    /** One slash command per skill: the skill's instructions, then what the user typed after the command. */
    private record Commands(Supplier<SkillCatalog> skills) implements CommandSource {
        @Override
        public List<AvailableCommand> commands() {
            return skills.get().all().stream().map(s -> new AvailableCommand(s.name(), "Skill: " + s.description(), "arguments")).toList();
        }

        @Override public boolean hasCommand(String name) { return skills.get().find(name).isPresent(); }

        @Override
        public String prompt(String name, String arguments, Cancellation cancel) throws ToolException {
            Skill skill = skills.get().find(name).orElseThrow(() -> new ToolException("there is no skill '" + name + "'"));
            try {
                return "The user activated the skill '" + name + "'. Follow its instructions:\n\n" + SkillCatalog.activation(skill)
                        + (arguments.isEmpty() ? "" : "\nThe user's request:\n" + arguments);
            } catch (IOException e) {
                throw new ToolException(e.getMessage());
            }
        }
    }
}
