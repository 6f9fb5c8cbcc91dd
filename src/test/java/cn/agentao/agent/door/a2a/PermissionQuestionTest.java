package cn.agentao.agent.door.a2a;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How a caller's reply to an input-required permission question is read. */
class PermissionQuestionTest {

    private static PermissionQuestion question(boolean rememberable) {
        ObjectNode params = Json.object();
        params.putObject("toolCall").put("toolCallId", "c1").put("title", "Write /tmp/x");
        var options = params.putArray("options");
        options.addObject().put("optionId", "allow_once").put("name", "Allow once").put("kind", "allow_once");
        if (rememberable) options.addObject().put("optionId", "allow_always").put("name", "Always").put("kind", "allow_always");
        options.addObject().put("optionId", "reject_once").put("name", "Reject").put("kind", "reject_once");
        if (rememberable) options.addObject().put("optionId", "reject_always").put("name", "Never").put("kind", "reject_always");
        return new PermissionQuestion(params);
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
        assertEquals(option, question(true).optionFor(text(reply)));
    }

    @ParameterizedTest
    @CsvSource({"maybe", "yes please", "sure thing", "allow_sometimes", "''"})
    void anythingElseIsNotAnAnswer(String reply) {
        assertNull(question(true).optionFor(text(reply)));
    }

    @Test
    void alwaysIsNotAnAnswerWhenTheOptionIsNotOffered() {
        assertNull(question(false).optionFor(text("always")));
        assertNull(question(false).optionFor(text("never")));
        assertEquals("allow_once", question(false).optionFor(text("yes")));
    }

    @Test
    void dataPartWithAnOptionId() {
        ObjectNode m = Json.object().put("kind", "message").put("role", "user").put("messageId", "m");
        m.putArray("parts").addObject().put("kind", "data").putObject("data").put("optionId", "reject_once");
        assertEquals("reject_once", question(true).optionFor(m));
        ObjectNode bad = Json.object().put("kind", "message");
        bad.putArray("parts").addObject().put("kind", "data").putObject("data").put("optionId", "format_disk");
        assertNull(question(true).optionFor(bad));
    }

    @Test
    void theQuestionNamesTheCallAndTheAnswers() {
        String q = question(true).text(null);
        assertTrue(q.contains("Write /tmp/x") && q.contains("\"yes\"") && q.contains("\"never\"") && q.contains("allow_always"), q);
        assertEquals("permission", question(true).data().path("type").asText());
        assertEquals(4, question(true).data().path("options").size());
    }
}
