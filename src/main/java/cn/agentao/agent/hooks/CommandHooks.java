package cn.agentao.agent.hooks;

import cn.agentao.agent.core.SessionService;
import cn.agentao.agent.core.hook.HookCall;
import cn.agentao.agent.core.hook.HookEvent;
import cn.agentao.agent.core.hook.HookOutcome;
import cn.agentao.agent.core.hook.Hooks;
import cn.agentao.agent.core.tool.local.LocalCommandRunner;
import cn.agentao.agent.trust.TrustedProjects;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The user's hooks as commands, configured as Claude Code's are: the user's {@code hooks.json} and the {@code hooks}
 * key of {@code config.json} in the config directory; a trusted project's {@code .agent/hooks.json} and
 * {@code .claude/settings.json}'s {@code hooks}. Files are read at the first event that needs them (never at start).
 * Each matching command runs as {@code bash -c command} in the session's directory, as the user (outside the sandbox:
 * they are the user's own configuration), with the scrubbed child environment plus {@code CLAUDE_PROJECT_DIR}; the
 * payload is its stdin; all of an event's hooks run at once, each within its {@code timeout}. Exit 0: stdout is a
 * JSON decision (or, for UserPromptSubmit and SessionStart, plain text for the model); exit 2: blocked, stderr the
 * reason; anything else, a timeout or a hook that cannot start: a failure the user is told about.
 */
public final class CommandHooks implements Hooks {
    private static final Logger log = LoggerFactory.getLogger(CommandHooks.class);
    /** How much of a hook's stdout and stderr is kept. */
    static final int OUTPUT_LIMIT = 64 * 1024;
    private static final String SHELL = Files.isExecutable(Path.of("/bin/bash")) ? "/bin/bash" : "/bin/sh";

    private final Path configDir;
    private final TrustedProjects trust;
    /** Problems with the files already told to a session (session id, problem). */
    private final Set<String> told = ConcurrentHashMap.newKeySet();

    public CommandHooks(Path configDir, TrustedProjects trust) {
        this.configDir = configDir;
        this.trust = trust;
    }

    /** Registers the user's hooks with {@code sessions}: one line in the process's wiring. */
    public static void register(SessionService sessions, Path configDir, TrustedProjects trust) {
        sessions.useHooks(new CommandHooks(configDir, trust));
    }

    @Override
    public HookOutcome run(HookCall call) {
        List<String> notices = new ArrayList<>();
        Map<String, HookConfig.Command> matching = new LinkedHashMap<>(); // one run per distinct command line
        for (Path file : files(call.cwd())) {
            HookConfig.Loaded loaded = HookConfig.load(file);
            if (loaded.problem() != null && told.add(call.sessionId() + "\0" + loaded.problem())) {
                notices.add("Hooks: " + loaded.problem());
            }
            for (HookConfig.Command c : loaded.commands()) {
                if (c.event() == call.event() && (!call.event().matched() || c.matcher().matches(call.subject()))) {
                    matching.putIfAbsent(c.command(), c);
                }
            }
        }
        if (matching.isEmpty()) return new HookOutcome(HookOutcome.Verdict.NONE, null, List.of(), notices, false);
        byte[] stdin = (call.payload().toString() + "\n").getBytes(StandardCharsets.UTF_8);
        List<HookConfig.Command> commands = List.copyOf(matching.values());
        List<Answer> answers = new ArrayList<>();
        if (commands.size() == 1) {
            answers.add(runOne(commands.get(0), call, stdin));
        } else {
            List<java.util.concurrent.Future<Answer>> running = new ArrayList<>();
            try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
                for (HookConfig.Command c : commands) running.add(pool.submit(() -> runOne(c, call, stdin)));
            }
            for (var f : running) answers.add(f.resultNow());
        }
        return combine(answers, notices);
    }

    /** The files hooks come from for a session in {@code cwd}: the user's, then (trusted only) the project's. */
    private List<Path> files(Path cwd) {
        List<Path> files = new ArrayList<>(List.of(configDir.resolve("hooks.json"), configDir.resolve(cn.agentao.agent.config.ConfigJson.USER_FILE))); // re-read when it changes
        if (cwd != null && (Files.isRegularFile(cn.agentao.agent.config.AgentConfig.projectDir(cwd).resolve("hooks.json")) || Files.isRegularFile(cwd.resolve(".claude/settings.json")))
                && trust.trusted(cwd)) {
            files.add(cn.agentao.agent.config.AgentConfig.projectDir(cwd).resolve("hooks.json"));
            files.add(cwd.resolve(".claude/settings.json"));
        }
        return files;
    }

    /** What one hook said. */
    record Answer(HookOutcome.Verdict verdict, String reason, String context, String notice, boolean failed) {
        static Answer nothing() { return new Answer(HookOutcome.Verdict.NONE, null, null, null, false); }
    }

    private Answer runOne(HookConfig.Command c, HookCall call, byte[] stdin) {
        String event = call.event().wire();
        String name = "Hook `" + abbreviate(c.command()) + "` (" + event + ", " + c.source() + ")";
        String consequence = call.event() == HookEvent.PRE_TOOL_USE ? "; the tool call is asked about instead of allowed" : "";
        ProcessBuilder pb = new ProcessBuilder(SHELL, "-c", c.command());
        if (call.cwd() != null && Files.isDirectory(call.cwd())) pb.directory(call.cwd().toFile());
        pb.environment().clear();
        pb.environment().putAll(call.children().variables());
        if (call.cwd() != null) {
            pb.environment().put("CLAUDE_PROJECT_DIR", call.cwd().toString());
            pb.environment().put("AGENT_PROJECT_DIR", call.cwd().toString());
        }
        long started = System.nanoTime();
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return new Answer(HookOutcome.Verdict.NONE, null, null, name + " could not start: " + e.getMessage() + consequence, true);
        }
        Cancellation cancel = call.cancel() == null ? Cancellation.NONE : call.cancel();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread outReader = Thread.ofVirtual().start(() -> drain(p.getInputStream(), out));
        Thread errReader = Thread.ofVirtual().start(() -> drain(p.getErrorStream(), err));
        boolean finished;
        try (Cancellation.Registration ignored = cancel.onCancel(() -> p.toHandle().destroyForcibly())) {
            Thread.ofVirtual().start(() -> {
                try (OutputStream in = p.getOutputStream()) {
                    in.write(stdin);
                } catch (IOException e) { // the hook did not read its payload: its business
                }
            });
            finished = p.waitFor(c.timeoutSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            finished = false;
        }
        if (!finished) {
            LocalCommandRunner.killTree(p, false);
            if (cancel.isCancelled()) return Answer.nothing();
            return new Answer(HookOutcome.Verdict.NONE, null, null,
                    name + " timed out after " + c.timeoutSeconds() + " s and was stopped" + consequence, true);
        }
        join(outReader);
        join(errReader);
        String stdout = text(out);
        String stderr = text(err).strip();
        int exit = p.exitValue();
        log.debug("{} exited {} in {} ms", name, exit, (System.nanoTime() - started) / 1_000_000);
        if (exit == 2) {
            return new Answer(HookOutcome.Verdict.DENY, stderr.isEmpty() ? "blocked by a hook (exit code 2)" : stderr, null, null, false);
        }
        if (exit != 0) {
            return new Answer(HookOutcome.Verdict.NONE, null, null, name + " failed with exit code " + exit
                    + (stderr.isEmpty() ? "" : ": " + abbreviate(stderr)) + consequence, true);
        }
        return decision(call.event(), name, consequence, stdout.strip());
    }

    /** A hook's stdout after exit 0, in Claude Code's schema. */
    private static Answer decision(HookEvent event, String name, String consequence, String stdout) {
        boolean plainContext = event == HookEvent.USER_PROMPT_SUBMIT || event == HookEvent.SESSION_START;
        if (!stdout.startsWith("{")) {
            return new Answer(HookOutcome.Verdict.NONE, null, plainContext && !stdout.isEmpty() ? stdout : null, null, false);
        }
        JsonNode o;
        try {
            o = Json.mapper().readTree(stdout);
        } catch (IOException | RuntimeException e) {
            o = null;
        }
        if (o == null || !o.isObject()) {
            return new Answer(HookOutcome.Verdict.NONE, null, null, name + " printed JSON that cannot be read" + consequence, true);
        }
        String notice = o.path("systemMessage").isTextual() ? "Hook: " + o.path("systemMessage").textValue() : null;
        JsonNode specific = o.path("hookSpecificOutput");
        String context = specific.path("additionalContext").isTextual() ? specific.path("additionalContext").textValue() : null;
        HookOutcome.Verdict verdict = HookOutcome.Verdict.NONE;
        String reason = o.path("reason").isTextual() ? o.path("reason").textValue() : null;
        switch (o.path("decision").asText("")) {
            case "block" -> verdict = HookOutcome.Verdict.DENY;
            case "approve" -> verdict = event == HookEvent.PRE_TOOL_USE ? HookOutcome.Verdict.ALLOW : verdict;
            default -> { }
        }
        if (event == HookEvent.PRE_TOOL_USE) {
            switch (specific.path("permissionDecision").asText("")) {
                case "allow" -> verdict = HookOutcome.Verdict.ALLOW;
                case "deny" -> verdict = HookOutcome.Verdict.DENY;
                case "ask" -> verdict = HookOutcome.Verdict.ASK;
                default -> { }
            }
            if (specific.path("permissionDecisionReason").isTextual()) reason = specific.path("permissionDecisionReason").textValue();
            if (specific.has("updatedInput") && verdict != HookOutcome.Verdict.DENY) {
                return new Answer(HookOutcome.Verdict.ASK, "the hook wanted to change the call's input", context,
                        name + " asked to change the call's input (updatedInput), which is not supported" + consequence, true);
            }
        }
        if (o.path("continue").isBoolean() && !o.path("continue").booleanValue()) {
            verdict = HookOutcome.Verdict.DENY;
            if (o.path("stopReason").isTextual()) reason = o.path("stopReason").textValue();
        }
        if (verdict == HookOutcome.Verdict.DENY && (reason == null || reason.isBlank())) reason = "blocked by a hook";
        return new Answer(verdict, reason, context, notice, false);
    }

    /** The answers of one event together: deny over ask over allow; every context and notice kept. */
    static HookOutcome combine(List<Answer> answers, List<String> notices) {
        HookOutcome.Verdict verdict = HookOutcome.Verdict.NONE;
        for (Answer a : answers) if (a.verdict().compareTo(verdict) > 0) verdict = a.verdict();
        List<String> reasons = new ArrayList<>();
        List<String> context = new ArrayList<>();
        List<String> all = new ArrayList<>(notices);
        boolean failed = false;
        for (Answer a : answers) {
            if (a.verdict() == verdict && a.reason() != null) reasons.add(a.reason());
            if (a.context() != null) context.add(a.context());
            if (a.notice() != null) all.add(a.notice());
            failed |= a.failed();
        }
        return new HookOutcome(verdict, reasons.isEmpty() ? null : String.join("; ", reasons), context, all, failed);
    }

    private static void drain(InputStream in, ByteArrayOutputStream into) {
        byte[] buf = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                synchronized (into) {
                    int room = OUTPUT_LIMIT - into.size();
                    if (room > 0) into.write(buf, 0, Math.min(room, n));
                }
            }
        } catch (IOException e) { // the process went away
        }
    }

    private static void join(Thread t) {
        try {
            t.join(TimeUnit.SECONDS.toMillis(5)); // a grandchild holding the pipe open is not waited for long
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String text(ByteArrayOutputStream b) {
        synchronized (b) {
            return b.toString(StandardCharsets.UTF_8);
        }
    }

    private static String abbreviate(String s) {
        String one = s.strip().replaceAll("\\s+", " ");
        return one.length() > 120 ? one.substring(0, 119) + "…" : one;
    }
}
