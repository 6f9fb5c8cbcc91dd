package cn.agentao.agent.store;

import cn.agentao.agent.core.record.RecordTypes;
import cn.agentao.agent.core.repository.StoredSession;

import cn.agentao.agent.util.Json;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TranscriptRendererTest {
    @TempDir
    Path dir;

    private StoredSession fixture(String name) {
        Fixtures.copyInto(dir, name);
        return new SessionStore(dir).read(name);
    }

    /** good.jsonl is written the way the engine writes: the agent's replies are in its model messages. */
    @Test
    void textTranscriptShowsBothSidesAndToolCallsWithTheirResultsInShort() {
        String text = new TranscriptRenderer(TranscriptRenderer.Format.TEXT, false).render(fixture("good"));
        assertEquals("""
                Calculator test failure
                session good | cwd /home/ada/projects/calc | created 2025-06-01 09:00:00 UTC

                [2025-06-01 09:00:01 UTC] User:
                  Why does the calculator test fail?

                [2025-06-01 09:00:02 UTC] Agent:
                  I'll run the tests to see the failure.
                  * tool: mvn test (execute) - completed: Tests run: 4, Failures: 1 CalculatorTest.divideByZero: expected ArithmeticException
                  * plan:
                      [~] Guard divide() against a zero divisor
                      [ ] Re-run the tests
                  `divide` does not check for a zero divisor.

                [2025-06-01 09:00:20 UTC] User:
                  Fix it, please.

                [2025-06-01 09:00:21 UTC] Agent:
                  Error: the model provider is unavailable (HTTP 503). Try again in a moment.
                """, text);
    }

    @Test
    void thoughtsAreShownOnlyWhenAskedFor() {
        StoredSession good = fixture("good");
        String without = new TranscriptRenderer(TranscriptRenderer.Format.TEXT, false).render(good);
        assertFalse(without.contains("Run the tests first") || without.contains("Edit divide() first"), without);
        String with = new TranscriptRenderer(TranscriptRenderer.Format.TEXT, true).render(good);
        assertTrue(with.contains("  (thinking) Run the tests first.\n  I'll run the tests"), "a model message's reasoning: " + with);
        assertTrue(with.contains("  (thinking) Edit divide() first.\n"), "a reply cut short keeps its reasoning: " + with);
    }

    @Test
    void aLongToolResultIsCutShortInTheTranscriptButKeptInTheLog() {
        String output = "line one\n" + "x".repeat(5000);
        SessionStore store = new SessionStore(dir, SyncPolicy.NO_FSYNC);
        try (SessionWriter w = store.create("long", dir, null)) {
            w.append(RecordTypes.TOOL_CALL, Json.object().put("toolCallId", "c").put("title", "cat big").put("kind", "read")
                    .put("status", "pending"));
            ObjectNode done = Json.object().put("toolCallId", "c").put("status", "completed");
            done.putArray("content").addObject().put("type", "content").putObject("content").put("type", "text").put("text", output);
            w.append(RecordTypes.TOOL_CALL_UPDATE, done);
        }
        String text = new TranscriptRenderer(TranscriptRenderer.Format.TEXT, false).render(store.read("long"));
        String shown = text.substring(text.indexOf("* tool: cat big (read) - completed: line one xxx"));
        assertTrue(shown.strip().endsWith("…"), text);
        assertTrue(shown.strip().length() < 300, "in short: " + shown.length() + " characters");
        assertTrue(store.read("long").records().get(1).toString().contains(output.substring(9)), "the whole output stays in the log");
    }

    @Test
    void markdownTranscriptHasHeadingsAndListsAndNamesSkippedDamage() {
        String md = new TranscriptRenderer(TranscriptRenderer.Format.MARKDOWN, false).render(fixture("corrupt-middle-line"));
        assertTrue(md.startsWith("# Todo summary\n\n- session corrupt-middle-line\n"), md);
        assertTrue(md.contains("## User (2025-06-03 11:00:01 UTC)\n\nSummarise todo.md\n"), md);
        assertTrue(md.contains("## Agent (2025-06-03 11:00:03 UTC)\n\nThree items are open.\n"), md);
        assertTrue(md.contains("**Damaged lines skipped:**\n\n- line 3: not valid JSON"), md);
    }
}
