package cn.agentao.agent.door.a2a;

import cn.agentao.agent.core.content.ToolCallStatus;
import cn.agentao.agent.core.content.ToolKind;
import cn.agentao.agent.core.event.AgentEvent;
import cn.agentao.agent.core.host.ApprovalOption;
import cn.agentao.agent.core.host.ApprovalRequest;
import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How a caller's reply to an input-required permission question is read. */
class PermissionQuestionTest {

    private static PermissionQuestion question(boolean rememberable) {
        AgentEvent.ToolCallStarted call = new AgentEvent.ToolCallStarted("c1", "Write /tmp/x", ToolKind.EDIT, ToolCallStatus.PENDING,
                null, null, null, null);
        List<ApprovalOption> options = new ArrayList<>();
        options.add(ApprovalOption.of(ApprovalOption.Kind.ALLOW_ONCE, "Allow once"));
        if (rememberable) options.add(ApprovalOption.of(ApprovalOption.Kind.ALLOW_ALWAYS, "Always"));
        options.add(ApprovalOption.of(ApprovalOption.Kind.REJECT_ONCE, "Reject"));
        if (rememberable) options.add(ApprovalOption.of(ApprovalOption.Kind.REJECT_ALWAYS, "Never"));
        return new PermissionQuestion(new ApprovalRequest(call, options));
    }

    private static ObjectNode text(String t) {
        ObjectNode m = Json.object().put("kind", "message").put("role", "user").put("messageId", "m");
        m.putArray("parts").addObject().put("kind", "text").put("text", t);
        return m;
    }

    @ParameterizedTest
    @CsvSource({"yes,allow_once", "Yes.,allow_once", "allow,allow_once", " ALWAYS ,allow_always", "no,reject_once",
            "reject,reject_once", "never,reject_always", "allow_once,allow_once", "reject_always,reject_always"})
    void plainWordsAndOptionIds(String reply, String option) {
        assertEquals(option, question(true).reply(text(reply)));
    }

    @ParameterizedTest
    @CsvSource({"maybe", "yes please", "sure thing", "allow_sometimes", "''"})
    void anythingElseIsNotAnAnswer(String reply) {
        assertNull(question(true).reply(text(reply)));
    }

    @Test
    void alwaysIsNotAnAnswerWhenTheOptionIsNotOffered() {
        assertNull(question(false).reply(text("always")));
        assertNull(question(false).reply(text("never")));
        assertEquals("allow_once", question(false).reply(text("yes")));
    }

    @Test
    void dataPartWithAnOptionId() {
        ObjectNode m = Json.object().put("kind", "message").put("role", "user").put("messageId", "m");
        m.putArray("parts").addObject().put("kind", "data").putObject("data").put("optionId", "reject_once");
        assertEquals("reject_once", question(true).reply(m));
        ObjectNode bad = Json.object().put("kind", "message");
        bad.putArray("parts").addObject().put("kind", "data").putObject("data").put("optionId", "format_disk");
        assertNull(question(true).reply(bad));
    }

    @Test
    void theQuestionNamesTheCallAndTheAnswers() {
        String q = question(true).text(null);
        assertTrue(q.contains("Write /tmp/x") && q.contains("\"yes\"") && q.contains("\"never\"") && q.contains("allow_always"), q);
        assertEquals("permission", question(true).data().path("type").asText());
        assertEquals(4, question(true).data().path("options").size());
    }
}
