package cn.agentao.agent.core;

import cn.agentao.agent.core.content.AvailableCommand;
import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.RecordedRequest;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.tools.skills.SkillTools;
import cn.agentao.agent.trust.TrustedProjects;
import cn.agentao.agent.util.Cancellation;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Skills in-process: the scripted model, the real core with the skills connector, SKILL.md files on disk. */
@Timeout(60)
class SkillsTest {
    @TempDir
    Path dir;
    CoreFixture core;
    FakeModelServer model;
    SessionService sessions;
    Path ws;
    Path configDir;

    @BeforeEach
    void start() throws Exception {
        core = CoreFixture.start(dir);
        model = core.model;
        sessions = core.sessions;
        configDir = core.configDir;
        ws = core.ws;
        sessions.addConnector(new SkillTools());
    }

    @AfterEach
    void stop() {
        core.close();
    }

    private Session open(FakeHost host) throws CoreException {
        Session s = sessions.create(SessionService.Spec.of(ws), id -> host);
        s.ready();
        return s;
    }

    private static Path skill(Path root, String folder, String skillMd) throws Exception {
        Path d = Files.createDirectories(root.resolve(folder));
        Files.writeString(d.resolve("SKILL.md"), skillMd);
        return d;
    }

    private void trustProject() throws Exception {
        new TrustedProjects(configDir.resolve(ConfigLocations.TRUSTED_PROJECTS)).record(ws, true, null);
    }

    private static final String RELEASE_NOTES = """
            ---
            name: release-notes
            description: Write release notes from the git log since the last tag
            allowed-tools: [run_shell_command, read_file]
            ---
            Run git log since the last tag and group the commits under Added, Fixed, Changed.
            Use the layout in template.md.
            """;

    private static String system(RecordedRequest r) {
        JsonNode first = r.messages().get(0);
        assertEquals("system", first.path("role").asText());
        return first.path("content").isTextual() ? first.path("content").asText() : first.path("content").toString();
    }

    private static List<String> toolNames(RecordedRequest r) {
        List<String> names = new java.util.ArrayList<>();
        for (JsonNode t : r.tools()) names.add(t.path("function").path("name").asText());
        return names;
    }

    @Test
    void theModelSeesTheSkillActivatesItAndTheNextRequestCarriesTheBodyAndTheFiles() throws Exception {
        trustProject();
        Path d = skill(ws.resolve(".agent/skills"), "release-notes", RELEASE_NOTES);
        Files.writeString(d.resolve("template.md"), "## Added\n");
        FakeHost host = new FakeHost();
        Session s = open(host);
        model.enqueue(Script.reply().toolCall("c1", "activate_skill", "{\"name\":\"release-notes\"}"), Script.textReply("done"));

        s.prompt(List.of(ContentBlock.text("Write the release notes")), Cancellation.NONE);

        RecordedRequest first = model.requests().getFirst();
        assertTrue(system(first).contains("- release-notes: Write release notes from the git log since the last tag"), system(first));
        assertTrue(toolNames(first).contains("activate_skill"), toolNames(first).toString());
        assertFalse(first.rawBody().contains("group the commits under Added"), "the body is loaded only on activation");
        String next = model.requests().getLast().rawBody();
        assertTrue(next.contains("group the commits under Added, Fixed, Changed"), next);
        assertTrue(next.contains("template.md"), "the files beside SKILL.md are listed: " + next);
        assertTrue(next.contains("run_shell_command, read_file"), "allowed-tools is passed on");
    }

    @Test
    void aUserSkillsFilesAreReadThroughItsListingAndNothingElse() throws Exception {
        Path d = skill(configDir.resolve("skills"), "style", """
                ---
                name: style
                description: "House style: see rules.md"
                ---
                Follow rules.md.
                """);
        Files.writeString(d.resolve("rules.md"), "Tabs, never spaces.");
        Files.writeString(configDir.resolve("secret.env"), "OPENAI_API_KEY=sk-do-not-leak");
        FakeHost host = new FakeHost();
        Session s = open(host);
        model.enqueue(Script.reply().toolCall("c1", "activate_skill", "{\"name\":\"style\",\"file\":\"rules.md\"}"),
                Script.reply().toolCall("c2", "activate_skill", "{\"name\":\"style\",\"file\":\"../../secret.env\"}"),
                Script.textReply("ok"));

        s.prompt(List.of(ContentBlock.text("Check the style")), Cancellation.NONE);

        List<RecordedRequest> r = model.requests();
        assertTrue(system(r.getFirst()).contains("- style: House style: see rules.md"), "a user skill, outside the workspace, is offered");
        assertTrue(r.get(1).rawBody().contains("Tabs, never spaces."), "a file of the listing is read without a question");
        assertTrue(host.approvals.isEmpty(), "no permission question for the skill's own files");
        String last = r.getLast().rawBody();
        assertFalse(last.contains("sk-do-not-leak"), "a path out of the skill's folder is refused");
        assertTrue(last.contains("is not a file of skill 'style'"), last);
    }

    @Test
    void aSkillIsASlashCommandThatRunsATurnWithItsBody() throws Exception {
        trustProject();
        skill(ws.resolve(".claude/skills"), "release-notes", RELEASE_NOTES);
        FakeHost host = new FakeHost();
        Session s = open(host);
        List<String> advertised = host.of(AgentEvent.CommandsChanged.class).getLast().commands().stream().map(AvailableCommand::name).toList();
        assertTrue(advertised.contains("release-notes"), advertised.toString());
        model.enqueue(Script.textReply("Here are the notes"));

        s.prompt(List.of(ContentBlock.text("/release-notes since v1.2")), Cancellation.NONE);

        String user = model.requests().getLast().lastUserMessage();
        assertTrue(user.contains("group the commits under Added, Fixed, Changed"), user);
        assertTrue(user.contains("since v1.2"), "the command's arguments follow the body: " + user);
        assertEquals("Here are the notes", host.text());
    }

    @Test
    void anUntrustedProjectsSkillsAreNotOfferedAndANoticeSaysWhy() throws Exception {
        skill(ws.resolve(".agent/skills"), "release-notes", RELEASE_NOTES);
        FakeHost host = new FakeHost();
        Session s = open(host);
        model.enqueue(Script.textReply("hi"));

        s.prompt(List.of(ContentBlock.text("hello")), Cancellation.NONE);

        RecordedRequest r = model.requests().getFirst();
        assertFalse(r.rawBody().contains("release-notes"), "neither in the prompt nor as a command");
        assertFalse(toolNames(r).contains("activate_skill"), "no skills, no tool");
        assertTrue(host.of(AgentEvent.Notice.class).stream().anyMatch(n -> n.text().contains(".agent/skills")
                && n.text().contains("not trusted")), host.of(AgentEvent.Notice.class).toString());
        assertFalse(host.of(AgentEvent.CommandsChanged.class).getLast().commands().stream().anyMatch(c -> c.name().equals("release-notes")));
    }

    @Test
    void aBrokenSkillIsANoticeAndTheOthersStillWork() throws Exception {
        trustProject();
        skill(ws.resolve(".agent/skills"), "broken", "---\nname: broken\ndescription: \"unclosed\n---\nbody\n");
        skill(ws.resolve(".agentao/skills"), "nofront", "Just text, no front matter.\n");
        skill(ws.resolve(".agent/skills"), "release-notes", RELEASE_NOTES);
        FakeHost host = new FakeHost();
        Session s = open(host);
        model.enqueue(Script.textReply("hi"));

        s.prompt(List.of(ContentBlock.text("hello")), Cancellation.NONE);

        String sys = system(model.requests().getFirst());
        assertTrue(sys.contains("- release-notes:"), sys);
        assertFalse(sys.contains("- broken") || sys.contains("- nofront"), sys);
        List<String> notices = host.of(AgentEvent.Notice.class).stream().map(AgentEvent.Notice::text).toList();
        assertTrue(notices.stream().anyMatch(n -> n.contains(".agent/skills/broken/SKILL.md") && n.contains("unclosed quote")), notices.toString());
        assertTrue(notices.stream().anyMatch(n -> n.contains(".agentao/skills/nofront/SKILL.md") && n.contains("front matter")), notices.toString());
    }
}
