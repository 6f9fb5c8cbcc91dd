package cn.agentao.agent.store;

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

    @Test
    void textTranscriptShowsTheConversationAndHowToolCallsEnded() {
        String text = new TranscriptRenderer(TranscriptRenderer.Format.TEXT, false).render(fixture("good"));
        assertEquals("""
                Calculator test failure
                session good | cwd /home/ada/projects/calc | created 2025-06-01 09:00:00 UTC

                [2025-06-01 09:00:01 UTC] User:
                  Why does the calculator test fail?

                [2025-06-01 09:00:02 UTC] Agent:
                  I'll run the tests to see the failure.
                  * tool: Run mvn test (execute) - completed
                  * plan:
                      [~] Guard divide() against a zero divisor
                      [ ] Re-run the tests
                  `divide` does not check for a zero divisor.
                """, text);
    }

    @Test
    void thoughtsAreShownOnlyWhenAskedFor() {
        StoredSession good = fixture("good");
        assertFalse(new TranscriptRenderer(TranscriptRenderer.Format.TEXT, false).render(good).contains("Run the tests first"));
        assertTrue(new TranscriptRenderer(TranscriptRenderer.Format.TEXT, true).render(good)
                .contains("  (thinking) Run the tests first.\n"));
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
