package cn.agentao.agent.connect.smcp;

import cn.agentao.agent.util.Json;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** The "smcp" section of config.json, and the error codes in plain words. */
class SmcpConfigTest {
    static SmcpConfig.Result parse(String json, Map<String, String> env) throws Exception {
        return SmcpConfig.parse(Json.mapper().readTree(json), "config.json", env);
    }

    @Test
    void defaultsAndTheTokenFromItsVariable() throws Exception {
        SmcpConfig c = parse("{\"url\":\"http://h:8000/\",\"office\":\"o\",\"tokenEnv\":\"OFFICE_ACCESS\"}", Map.of("OFFICE_ACCESS", "t0ken-xyz"))
                .config().orElseThrow();
        assertEquals("http://h:8000", c.url().toString());
        assertEquals("agent", c.name());
        assertNull(c.a2cVersion(), "no version forced: the newest is offered and the server's refusal may name an older one");
        assertEquals(Duration.ofSeconds(120), c.toolTimeout());
        assertEquals("t0ken-xyz", c.token());
        assertFalse(c.toString().contains("t0ken-xyz"), "the token is never shown");
        SmcpConfig set = parse("{\"url\":\"https://h\",\"office\":\"o\",\"name\":\"n\",\"a2cVersion\":\"0.3.1\",\"toolTimeoutSeconds\":7}", Map.of())
                .config().orElseThrow();
        assertEquals("0.3.1", set.a2cVersion());
        assertEquals(Duration.ofSeconds(7), set.toolTimeout());
        assertNull(set.token());
    }

    @Test
    void aBadSectionIsNamedAndJoinsNothing() throws Exception {
        Map<String, String> env = Map.of();
        for (String[] c : new String[][]{
                {"[]", "must be an object"},
                {"{\"url\":\"http://h\"}", "needs \"url\" and \"office\""},
                {"{\"url\":\"ws://h\",\"office\":\"o\"}", "must be http(s)://HOST:PORT"},
                {"{\"url\":\"http://h\",\"office\":\"o\",\"a2cVersion\":\"2\"}", "\"a2cVersion\" must look like 0.2.0"},
                {"{\"url\":\"http://h\",\"office\":\"o\",\"tokenEnv\":\"$X\"}", "\"tokenEnv\" must be a variable name"},
                {"{\"url\":\"http://h\",\"office\":\"o\",\"tokenEnv\":\"UNSET_VAR\"}", "UNSET_VAR (tokenEnv) is not set"},
                {"{\"url\":\"http://h\",\"office\":\"o\",\"toolTimeoutSeconds\":0}", "must be a positive whole number"}}) {
            SmcpConfig.Result r = parse(c[0], env);
            assertTrue(r.config().isEmpty(), c[0]);
            assertTrue(r.problems().get(0).contains(c[1]) && r.problems().get(0).contains("no office is joined"), r.problems().toString());
        }
        assertTrue(parse("null", env).problems().isEmpty(), "no section: no office, no problem");
    }

    @Test
    void errorCodesInPlainWords() throws Exception {
        assertEquals("the tool is disabled on its Computer (off)", SmcpErrors.of(Json.mapper().readTree("{\"code\":4002,\"message\":\"off\"}")).orElseThrow());
        assertEquals("the tool failed on its Computer", SmcpErrors.of(Json.mapper().readTree("{\"error\":{\"code\":4003}}")).orElseThrow());
        assertEquals("that Computer is in another office (c)", SmcpErrors.describe("4104 c"));
        assertEquals("the office is full: another agent is already in it (x)", SmcpErrors.describe("4101: x"));
        assertEquals("plain words stay", SmcpErrors.describe("plain words stay"));
        assertTrue(SmcpErrors.of(Json.mapper().readTree("{\"content\":[],\"isError\":false}")).isEmpty(), "a tool result is no error");
    }
}
