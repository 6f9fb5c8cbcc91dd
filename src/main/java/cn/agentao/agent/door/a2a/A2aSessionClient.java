package cn.agentao.agent.door.a2a;

import cn.agentao.agent.core.SessionClient;
import cn.agentao.agent.protocol.ClientCapabilities;
import cn.agentao.agent.protocol.ContentBlock;
import cn.agentao.agent.protocol.SessionUpdate;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.CancelledException;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;

/**
 * A context's session as the engine sees it: the answer text streams into the running task's artifact, tool
 * calls show as {@code working} status messages, and a permission question parks the task in
 * {@code input-required} until the caller answers it in the same task.
 */
final class A2aSessionClient implements SessionClient {
    private volatile A2aTask current;

    void current(A2aTask task) { this.current = task; }

    @Override
    public void update(SessionUpdate update) {
        A2aTask task = current;
        if (task == null) return;
        if (update instanceof SessionUpdate.AgentMessageChunk c && c.content() instanceof ContentBlock.Text t) {
            task.answerChunk(t.text());
        } else if (update instanceof SessionUpdate.ToolCall call && call.title() != null) {
            task.status("working", A2aMessages.agent(task.id(), task.contextId(), "Tool: " + call.title(), null));
        }
    }

    @Override
    public ClientCapabilities capabilities() { return ClientCapabilities.NONE; }

    @Override
    public JsonNode call(String method, ObjectNode params, Cancellation cancel) throws Exception {
        A2aTask task = current;
        if (!"session/request_permission".equals(method) || task == null) {
            throw new UnsupportedOperationException(method + " is not available to A2A callers");
        }
        PermissionQuestion q = new PermissionQuestion(params);
        task.question(q);
        try (Cancellation.Registration r = cancel.onCancel(() -> q.answer().cancel(false))) {
            task.status("input-required", A2aMessages.agent(task.id(), task.contextId(), q.text(null), q.data()));
            String option = q.answer().get();
            ObjectNode answer = Json.object();
            answer.putObject("outcome").put("outcome", "selected").put("optionId", option);
            return answer;
        } catch (CancellationException | ExecutionException e) {
            throw new CancelledException();
        } finally {
            task.question(null);
        }
    }
}
