package cn.agentao.agent.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DotEnvTest {

    @Test
    void parsesCommentsExportAndUnquotedValues() {
        Map<String, String> values = DotEnv.parse("""
                # a comment
                OPENAI_API_KEY=sk-abc   # trailing comment

                export OPENAI_MODEL = gpt-4o
                \texport\tLLM_PROVIDER=OPENAI
                EMPTY=
                URL=http://host/a#fragment
                not an assignment
                =no key
                """);

        assertEquals("sk-abc", values.get("OPENAI_API_KEY"));
        assertEquals("gpt-4o", values.get("OPENAI_MODEL"));
        assertEquals("OPENAI", values.get("LLM_PROVIDER"));
        assertEquals("", values.get("EMPTY"));
        assertEquals("http://host/a#fragment", values.get("URL"), "a # without a space before it is part of the value");
        assertEquals(5, values.size());
    }

    @Test
    void parsesQuotedValues() {
        Map<String, String> values = DotEnv.parse("""
                DOUBLE="a # not a comment"  # but this is
                SINGLE='literal ${HOME} and \\n'
                ESCAPES="line1\\nline2\\t\\"quoted\\""
                MULTI="first
                second"
                AFTER=ok
                UNTERMINATED="oops
                """);

        assertEquals("a # not a comment", values.get("DOUBLE"));
        assertEquals("literal ${HOME} and \\n", values.get("SINGLE"));
        assertEquals("line1\nline2\t\"quoted\"", values.get("ESCAPES"));
        assertEquals("first\nsecond", values.get("MULTI"));
        assertEquals("ok", values.get("AFTER"));
        assertEquals("\"oops", values.get("UNTERMINATED"));
    }

    @Test
    void expandsReferencesFromTheFileThenTheOuterLookup() {
        Map<String, String> values = DotEnv.parse("""
                HOST=api.example.com
                BASE_URL=https://${HOST}/v1
                KEY=${SECRET_FROM_ENV}
                FALLBACK=${MISSING:-default-value}
                """, name -> name.equals("SECRET_FROM_ENV") ? "from-env" : null);

        assertEquals("https://api.example.com/v1", values.get("BASE_URL"));
        assertEquals("from-env", values.get("KEY"));
        assertEquals("default-value", values.get("FALLBACK"));
    }

    @Test
    void handlesWindowsLineEndingsAndByteOrderMark() {
        Map<String, String> values = DotEnv.parse("\uFEFFA=1\r\nB=\"two\"\r\n");

        assertEquals("1", values.get("A"));
        assertEquals("two", values.get("B"));
    }

    @Test
    void readsFilesAndTreatsMissingOnesAsEmpty(@TempDir Path dir) throws Exception {
        Path file = dir.resolve(".env");
        Files.writeString(file, "X=1\n");

        assertEquals(Map.of("X", "1"), DotEnv.read(file, name -> null));
        assertTrue(DotEnv.read(dir.resolve("missing"), name -> null).isEmpty());
        assertFalse(DotEnv.read(null, name -> null).containsKey("X"));
    }
}
