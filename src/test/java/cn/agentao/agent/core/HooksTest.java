package cn.agentao.agent.core;

import cn.agentao.agent.core.content.StopReason;
import cn.agentao.agent.core.content.TurnResult;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.hooks.CommandHooks;
import cn.agentao.agent.config.ConfigLocations;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.trust.TrustedProjects;
import cn.agentao.agent.util.Cancellation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The user's hooks in-process: the scripted model, the real tools and permission engine, and real hook scripts
 * (bash) configured in {@code hooks.json} as Claude Code's are.
 */
@Timeout(60)
class HooksTest {
    @TempDir
    Path dir;
    Path configDir;
    TrustedProjects trust;

    CoreFixture core;

    @BeforeEach
    void start() throws Exception {
        core = CoreFixture.start(dir);
        configDir = Files.createDirectories(core.configDir);
        trust = new TrustedProjects(configDir.resolve(ConfigLocations.TRUSTED_PROJECTS));
        core.sessions.useHooks(new CommandHooks(configDir, trust));
    }

    @AfterEach
    void stop() {
        core.close();
    }

    /** An executable bash script with {@code body}; returns its path (the hook's command). */
    private String script(String name, String body) throws Exception {
        Path p = Files.createDirectories(dir.resolve("scripts")).resolve(name);
        Files.writeString(p, "#!/bin/bash\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p.toString();
    }

    /** A hooks file with one group: {@code event}, {@code matcher} (null: none), {@code command}, {@code timeout} (0: default). */
    private static void hooksFile(Path file, String event, String matcher, String command, int timeout) throws Exception {
        Files.createDirectories(file.getParent());
        String m = matcher == null ? "" : "\"matcher\": \"" + matcher + "\", ";
        String t = timeout > 0 ? ", \"timeout\": " + timeout : "";
        Files.writeString(file, "{\"hooks\": {\"" + event + "\": [{" + m + "\"hooks\": [{\"type\": \"command\", \"command\": \""
                + command + "\"" + t + "}]}]}}");
    }

    private String lastRequest() {
        return core.model.requests().getLast().rawBody();
    }

    @Test
    void aPreToolUseHookMatchedByClaudesNameDeniesAShellCommandWhichDoesNotRun() throws Exception {
        // reads the payload: denies commands that touch files, with a reason (Claude Code's hookSpecificOutput)
        String hook = script("no-touch.sh", """
                payload=$(cat)
                if echo "$payload" | grep -q '"tool_name":"run_shell_command"' && echo "$payload" | grep -q 'touch'; then
                  echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"touching files is not allowed here"}}'
                fi""");
        hooksFile(configDir.resolve("hooks.json"), "PreToolUse", "Bash", hook, 0);
        Files.writeString(core.ws.resolve("notes.txt"), "the notes");
        FakeHost host = new FakeHost().answer("allow_once"); // were it asked, the user would allow it
        Session s = core.open(host);
        core.model.enqueue(Script.reply().toolCall("c1", "run_shell_command", "{\"command\":\"touch marker\"}"),
                Script.reply().toolCall("c2", "read_file", "{\"path\":\"notes.txt\"}"), Script.textReply("ok"));

        s.prompt(CoreFixture.text("make a marker"), Cancellation.NONE);

        assertFalse(Files.exists(core.ws.resolve("marker")), "the denied command did not run");
        assertTrue(lastRequest().contains("touching files is not allowed here"), "the model hears the hook's reason: " + lastRequest());
        assertTrue(host.approvals.isEmpty(), "a deny is not a question");
        AgentEvent.ToolCallUpdated denied = host.of(AgentEvent.ToolCallUpdated.class).stream()
                .filter(u -> u.toolCallId().equals("c1") && u.status() != null && u.status().wire().equals("failed")).findFirst().orElseThrow();
        assertTrue(denied.content().toString().contains("touching files is not allowed here"), "the user sees the reason too");
        assertTrue(lastRequest().contains("the notes"), "a tool the matcher does not name (read_file) runs");
    }

    @Test
    void exitCode2BlocksTheCallWithStderrAsTheReason() throws Exception {
        hooksFile(configDir.resolve("hooks.json"), "PreToolUse", "Write", script("block.sh", "cat >/dev/null; echo 'no new files today' >&2; exit 2"), 0);
        FakeHost host = new FakeHost().answer("allow_once");
        Session s = core.open(host);
        core.model.enqueue(Script.reply().toolCall("c1", "write_file", "{\"path\":\"new.txt\",\"content\":\"x\"}"), Script.textReply("ok"));

        s.prompt(CoreFixture.text("write a file"), Cancellation.NONE);

        assertFalse(Files.exists(core.ws.resolve("new.txt")), "the blocked write did not happen");
        assertTrue(lastRequest().contains("no new files today"), lastRequest());
    }

    @Test
    void aHookThatTimesOutIsANoticeAndTheCallIsAskedAboutNotAllowed() throws Exception {
        hooksFile(configDir.resolve("hooks.json"), "PreToolUse", "Read", script("slow.sh", "sleep 30"), 1);
        Files.writeString(core.ws.resolve("notes.txt"), "secret-ish notes");
        FakeHost host = new FakeHost().answer("reject_once");
        Session s = core.open(host);
        core.model.enqueue(Script.reply().toolCall("c1", "read_file", "{\"path\":\"notes.txt\"}"), Script.textReply("ok"));

        s.prompt(CoreFixture.text("read the notes"), Cancellation.NONE);

        assertEquals(1, host.approvals.size(), "a read the engine allows is asked about when its hook did not answer");
        assertFalse(lastRequest().contains("secret-ish notes"), "rejected, so not read");
        assertTrue(host.of(AgentEvent.Notice.class).stream().anyMatch(n -> n.text().contains("timed out after 1 s")),
                "the user is told: " + host.of(AgentEvent.Notice.class));
    }

    @Test
    void userPromptSubmitAddsContextThatReachesTheModel() throws Exception {
        hooksFile(configDir.resolve("hooks.json"), "UserPromptSubmit", null, script("context.sh",
                "cat >/dev/null; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",\"additionalContext\":\"The build tool is Gradle 9.\"}}'"), 0);
        Session s = core.open(new FakeHost());
        core.model.enqueue(Script.textReply("noted"));

        s.prompt(CoreFixture.text("how do I build?"), Cancellation.NONE);

        assertTrue(lastRequest().contains("The build tool is Gradle 9."), lastRequest());
        assertTrue(lastRequest().contains("how do I build?"));
    }

    @Test
    void userPromptSubmitCanBlockThePromptBeforeTheModelSeesIt() throws Exception {
        hooksFile(configDir.resolve("hooks.json"), "UserPromptSubmit", null, script("guard.sh", """
                if grep -q 'password'; then echo 'prompts must not hold passwords' >&2; exit 2; fi"""), 0);
        FakeHost host = new FakeHost();
        Session s = core.open(host);

        TurnResult r = s.prompt(CoreFixture.text("my password is hunter2"), Cancellation.NONE);

        assertEquals(StopReason.END_TURN, r.stopReason());
        assertTrue(core.model.requests().isEmpty(), "the model was not asked");
        assertTrue(host.text().contains("prompts must not hold passwords"), host.text());
    }

    @Test
    void aStopHookCanSendTheModelBackToWorkOnce() throws Exception {
        hooksFile(configDir.resolve("hooks.json"), "Stop", null, script("stop.sh", """
                if grep -q '"stop_hook_active":false'; then echo '{"decision":"block","reason":"run the tests before you finish"}'; fi"""), 0);
        Session s = core.open(new FakeHost());
        core.model.enqueue(Script.textReply("done"), Script.textReply("tests pass, done"));

        TurnResult r = s.prompt(CoreFixture.text("fix it"), Cancellation.NONE);

        assertEquals(2, core.model.requests().size(), "the stop was blocked once, then allowed");
        assertTrue(lastRequest().contains("run the tests before you finish"), lastRequest());
        assertTrue(r.text().endsWith("tests pass, done"), r.text());
    }

    @Test
    void postToolUseContextReachesTheModelWithTheResult() throws Exception {
        hooksFile(configDir.resolve("hooks.json"), "PostToolUse", "Read", script("after.sh",
                "cat >/dev/null; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"this file is generated\"}}'"), 0);
        Files.writeString(core.ws.resolve("gen.txt"), "generated content");
        Session s = core.open(new FakeHost());
        core.model.enqueue(Script.reply().toolCall("c1", "read_file", "{\"path\":\"gen.txt\"}"), Script.textReply("ok"));

        s.prompt(CoreFixture.text("read it"), Cancellation.NONE);

        assertTrue(lastRequest().contains("generated content") && lastRequest().contains("this file is generated"), lastRequest());
    }

    @Test
    void aProjectsHooksRunOnlyOnceTheProjectIsTrusted() throws Exception {
        Path ran = dir.resolve("project-hook-ran");
        hooksFile(core.ws.resolve(".agent/hooks.json"), "PreToolUse", "Read", script("project.sh",
                "cat >/dev/null; touch " + ran + "; echo 'the project forbids reading' >&2; exit 2"), 0);
        Files.writeString(core.ws.resolve("notes.txt"), "the notes");
        Session s = core.open(new FakeHost());
        core.model.enqueue(Script.reply().toolCall("c1", "read_file", "{\"path\":\"notes.txt\"}"), Script.textReply("read"));

        s.prompt(CoreFixture.text("read the notes"), Cancellation.NONE);

        assertFalse(Files.exists(ran), "an untrusted project's hook does not run");
        assertTrue(lastRequest().contains("the notes"));

        trust.record(core.ws, true, null);
        core.model.enqueue(Script.reply().toolCall("c2", "read_file", "{\"path\":\"notes.txt\"}"), Script.textReply("blocked"));
        s.prompt(CoreFixture.text("read them again"), Cancellation.NONE);

        assertTrue(Files.exists(ran), "a trusted project's hook runs");
        assertTrue(lastRequest().contains("the project forbids reading"), lastRequest());
    }

    @Test
    void aBrokenHooksFileIsToldNotIgnored() throws Exception {
        Files.writeString(configDir.resolve("hooks.json"), "{\"hooks\": {\"PreToolUse\": [");
        FakeHost host = new FakeHost();
        Session s = core.open(host);
        core.model.enqueue(Script.textReply("hi"));

        s.prompt(CoreFixture.text("hello"), Cancellation.NONE);

        assertTrue(host.of(AgentEvent.Notice.class).stream().anyMatch(n -> n.text().contains("hooks.json is not valid JSON")),
                host.of(AgentEvent.Notice.class).toString());
    }

    @Test
    void theSessionsSecretsAreMaskedInWhatAHookIsGiven() throws Exception {
        Path seen = dir.resolve("payload.json");
        hooksFile(configDir.resolve("hooks.json"), "PostToolUse", "Read", script("keep.sh", "cat > " + seen), 0);
        Files.writeString(core.ws.resolve("leak.txt"), "key=" + FakeModelServer.API_KEY);
        Session s = core.open(new FakeHost());
        core.model.enqueue(Script.reply().toolCall("c1", "read_file", "{\"path\":\"leak.txt\"}"), Script.textReply("ok"));

        s.prompt(CoreFixture.text("read it"), Cancellation.NONE);

        String payload = Files.readString(seen);
        assertTrue(payload.contains("\"tool_name\":\"read_file\"") && payload.contains("key="), payload);
        assertFalse(payload.contains(FakeModelServer.API_KEY), "the model provider's key never reaches a hook: " + payload);
    }
}
