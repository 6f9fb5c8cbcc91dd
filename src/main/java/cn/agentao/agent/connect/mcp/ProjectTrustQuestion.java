package cn.agentao.agent.connect.mcp;

import cn.agentao.agent.core.tool.ConnectorSession;
import cn.agentao.agent.core.content.ToolCallContent;
import cn.agentao.agent.core.content.ToolCallLocation;
import cn.agentao.agent.core.content.ToolCallStatus;
import cn.agentao.agent.core.content.ToolKind;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.host.ApprovalAnswer;
import cn.agentao.agent.core.host.ApprovalOption;
import cn.agentao.agent.core.host.ApprovalRequest;
import cn.agentao.agent.trust.TrustedProjects;
import cn.agentao.agent.util.Cancellation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;

/**
 * The one question an untrusted project's {@code .agent/mcp.json} raises: an approval through the host whose tool
 * call lists the servers as written (name → command or URL, with {@code ${…}} unexpanded, so no secret travels).
 * Asked after the session is ready, on its own thread, so opening the session is never held up. "Trust" is kept in
 * the user's {@code trusted-projects.json}; "only this time" starts them for this session; "never" is kept until
 * the file changes; reject, cancel, an error or no answer leave them stopped and the question comes again next
 * session.
 */
final class ProjectTrustQuestion {
    private static final Logger log = LoggerFactory.getLogger(ProjectTrustQuestion.class);
    static final String TRUST = "allow_always";
    static final String ONCE = "allow_once";
    static final String NOT_NOW = "reject_once";
    static final String NEVER = "reject_always";

    private final ConnectorSession session;
    private final ProjectMcpFile file;
    private final TrustedProjects trust;
    private final Runnable startServers;
    private final Path project;

    ProjectTrustQuestion(ConnectorSession session, ProjectMcpFile file, TrustedProjects trust, Runnable startServers) {
        this.session = session;
        this.file = file;
        this.trust = trust;
        this.startServers = startServers;
        this.project = session.cwd();
    }

    void ask() {
        String id = "trust_" + UUID.randomUUID();
        List<String> servers = file.describe();
        List<String> changed = trust.changedStartFiles(project, file);
        String files = file.startFiles().isEmpty() ? "" : "\nThey start from these files of the project, which trusting covers too: "
                + String.join(", ", file.startFiles().keySet().stream().sorted()
                .map(f -> changed.contains(f) ? f + " (changed since you trusted it)" : f).toList()) + ".";
        String text = "This project's " + file.file() + " starts these MCP servers (programs that run as you, or "
                + "servers that get your headers):\n" + String.join("\n", servers.stream().map(s -> "- " + s).toList())
                + files + "\nTrusting the project also lets its .env choose model providers and endpoints.";
        AgentEvent.ToolCallStarted call = new AgentEvent.ToolCallStarted(id, "Start the project's MCP servers: " + String.join("; ", servers),
                ToolKind.EXECUTE, ToolCallStatus.PENDING, List.of(ToolCallContent.text(text)),
                List.of(new ToolCallLocation(file.file().toString())), null, null);
        session.emit(call);
        String answer = answer(call);
        boolean start = answer.equals(TRUST) || answer.equals(ONCE);
        session.emit(AgentEvent.ToolCallUpdated.status(id, start ? ToolCallStatus.COMPLETED : ToolCallStatus.FAILED));
        try {
            if (answer.equals(TRUST) || answer.equals(NEVER)) {
                trust.record(project, answer.equals(TRUST), file);
                session.projectTrustChanged();
            }
        } catch (IOException e) {
            session.notice("Your answer could not be saved in " + trust.file() + " (" + e.getMessage()
                    + "); you will be asked again next session.");
        }
        if (start) {
            startServers.run();
        } else {
            session.notice("The project's MCP servers (" + file.file() + ") were not started"
                    + (answer.equals(NEVER) ? "; you will not be asked again until the file changes."
                    : "; you will be asked again next session."));
        }
    }

    /** The chosen option id; anything but a selection of one of ours counts as "not now". */
    private String answer(AgentEvent.ToolCallStarted call) {
        ApprovalRequest request = new ApprovalRequest(call, List.of(
                new ApprovalOption(TRUST, "Trust this project and start them", ApprovalOption.Kind.ALLOW_ALWAYS),
                new ApprovalOption(ONCE, "Start them this time only", ApprovalOption.Kind.ALLOW_ONCE),
                new ApprovalOption(NOT_NOW, "Not now", ApprovalOption.Kind.REJECT_ONCE),
                new ApprovalOption(NEVER, "Never for this file", ApprovalOption.Kind.REJECT_ALWAYS)));
        try {
            ApprovalAnswer a = session.host().askApproval(request, Cancellation.NONE);
            return a.dismissed() || request.option(a.optionId()).isEmpty() ? NOT_NOW : a.optionId();
        } catch (Exception e) {
            log.info("the project trust question failed ({}); the project's MCP servers stay stopped", e.getClass().getSimpleName());
            return NOT_NOW;
        }
    }
}
