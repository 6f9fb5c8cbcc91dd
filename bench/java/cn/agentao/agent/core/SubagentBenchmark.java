package cn.agentao.agent.core;

import cn.agentao.agent.core.content.ContentBlock;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.host.ApprovalAnswer;
import cn.agentao.agent.core.host.ApprovalRequest;
import cn.agentao.agent.core.host.Host;
import cn.agentao.agent.core.host.Question;
import cn.agentao.agent.testing.FakeModelServer;
import cn.agentao.agent.testing.RecordedRequest;
import cn.agentao.agent.testing.Script;
import cn.agentao.agent.tools.subagents.TaskTool;
import cn.agentao.agent.util.Cancellation;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;

/**
 * A subagent's own cost before its first model request, on a warm process: from the moment the parent's {@code task}
 * call is shown (its {@code tool_call}) to the child's first model request reaching the scripted model server
 * (making the child session, its tools, its system prompt, the request). The reference, measured round by round in
 * the same run: a plain tool call ({@code read_file} of a small file) from the moment it is shown to the parent's next
 * model request reaching the server. Each round a new session; rounds interleaved; medians.
 * Usage: bench/run-java.sh cn.agentao.agent.core.SubagentBenchmark [rounds]
 */
public final class SubagentBenchmark {
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        Path dir = Files.createTempDirectory("subagent-bench");
        try (CoreFixture core = CoreFixture.start(dir)) {
            core.sessions.addConnector(new TaskTool(core.configDir));
            Files.writeString(core.ws.resolve("notes.txt"), "a small file\n");
            FakeModelServer model = core.model;
            Map<String, Long> arrived = new ConcurrentHashMap<>(); // request kind -> when it reached the server
            model.when(r -> { // records every request's arrival, answers none
                arrived.putIfAbsent(kind(r), System.nanoTime());
                return false;
            }).replyAlways(Script.textReply("unused"));
            model.when(r -> kind(r).equals("child")).replyAlways(Script.textReply("Done."));
            System.out.printf("rounds %d, load %s%n", rounds, CheckpointBenchmark.load());
            for (int w = 0; w < 30; w++) { child(core, arrived); plain(core, arrived); } // warm-up
            long[] child = new long[rounds], plain = new long[rounds];
            for (int r = 0; r < rounds; r++) {
                child[r] = child(core, arrived);
                plain[r] = plain(core, arrived);
            }
            double c = CheckpointBenchmark.median(child), p = CheckpointBenchmark.median(plain);
            System.out.printf("subagent: task call shown -> child's first model request: %.2f ms (median)%n", c);
            System.out.printf("reference: read_file call shown -> parent's next model request: %.2f ms (median)%n", p);
            System.out.printf("ratio %.2f; the subagent's own cost beyond a plain tool call: %.2f ms%n", c / p, c - p);
        }
    }

    /** The child's first request, the parent's request after a tool result, or another. */
    private static String kind(RecordedRequest r) {
        String system = r.messages().get(0).path("content").asText();
        if (system.contains("# Subagent: general-purpose")) return "child";
        return r.rawBody().contains("a small file") ? "after-read" : "other";
    }

    private static long child(CoreFixture core, Map<String, Long> arrived) throws Exception {
        core.model.enqueue(Script.reply().toolCall("t1", "task",
                "{\"agent\":\"general-purpose\",\"description\":\"say done\",\"prompt\":\"Say done.\"}"), Script.textReply("ok"));
        return round(core, arrived, "t1", "child");
    }

    private static long plain(CoreFixture core, Map<String, Long> arrived) throws Exception {
        core.model.enqueue(Script.reply().toolCall("r1", "read_file", "{\"path\":\"notes.txt\"}"), Script.textReply("ok"));
        return round(core, arrived, "r1", "after-read");
    }

    /** One prompt in a new session: the time from call {@code callId} shown to the first request of {@code kind}. */
    private static long round(CoreFixture core, Map<String, Long> arrived, String callId, String kind) throws Exception {
        arrived.clear();
        long[] shown = new long[1];
        Session s = core.sessions.create(SessionService.Spec.of(core.ws), id -> new Host() {
            @Override
            public void emit(AgentEvent event) {
                if (event instanceof AgentEvent.ToolCallStarted t && t.toolCallId().equals(callId) && shown[0] == 0) shown[0] = System.nanoTime();
            }

            @Override public ApprovalAnswer askApproval(ApprovalRequest request, Cancellation cancel) { return ApprovalAnswer.DISMISSED; }

            @Override public Optional<String> askUser(Question question, Cancellation cancel) { return Optional.empty(); }
        });
        s.ready();
        s.prompt(List.of(ContentBlock.text("go")), Cancellation.NONE);
        core.sessions.close(s.id());
        Long at = arrived.get(kind);
        if (at == null || shown[0] == 0) throw new IllegalStateException("the " + kind + " request did not come");
        return at - shown[0];
    }
}
