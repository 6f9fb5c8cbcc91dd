package cn.agentao.agent.connect.smcp;

import cn.agentao.agent.cli.SmcpCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** {@code agent smcp status} against a real office. */
class SmcpStatusCommandIT {
    @TempDir
    Path dir;

    record Run(int code, String out, String err) {}

    Run status(String configJson) throws Exception {
        Files.createDirectories(dir.resolve("agent"));
        Files.writeString(dir.resolve("agent/config.json"), configJson);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = new CommandLine(new SmcpCommand.Status(Map.of("XDG_CONFIG_HOME", dir.toString(), "HOME", dir.toString())))
                .setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute("--wait", "30");
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void showsTheOfficeItsComputersAndTheirTools() throws Exception {
        try (SmcpTestOffice office = SmcpTestOffice.start("--computers", "alpha,gamma")) {
            Run r = status("{\"smcp\":{\"url\":\"" + office.url() + "\",\"office\":\"office-1\",\"name\":\"checker\"}}");
            assertEquals(0, r.code(), r.err() + r.out());
            assertTrue(r.out().contains("state    joined"), r.out());
            assertTrue(r.out().contains("agent    checker (A2C 0.2.0, after the office refused 0.3.0)"), "the version spoken: " + r.out());
            assertTrue(r.out().contains("computer alpha: 8 tools") && r.out().contains("computer gamma: 8 tools"), r.out());
            assertTrue(r.out().contains("smcp__alpha__doc_search (search)"), r.out());
            assertTrue(r.out().contains("smcp__gamma__echo"), r.out());
        }
    }

    @Test
    void aVersionMismatchOrNoOfficeIsSaidPlainly() throws Exception {
        try (SmcpTestOffice office = SmcpTestOffice.start("--a2c-version", "1.0.0")) {
            Run r = status("{\"smcp\":{\"url\":\"" + office.url() + "\",\"office\":\"office-1\"}}");
            assertEquals(1, r.code());
            assertTrue(r.out().contains("this server speaks A2C 1.0.0, the agent speaks 0.3.0 or 0.2.0"), r.out());
        }
        try (SmcpTestOffice office = SmcpTestOffice.start("--a2c-version", "0.3.0")) {
            Run r = status("{\"smcp\":{\"url\":\"" + office.url() + "\",\"office\":\"office-1\",\"name\":\"checker\"}}");
            assertEquals(0, r.code(), r.err() + r.out());
            assertTrue(r.out().contains("agent    checker (A2C 0.3.0)\n"), r.out());
            assertTrue(r.out().contains("smcp__alpha__files__echo"), r.out());
        }
        Run none = status("{}");
        assertEquals(1, none.code());
        assertTrue(none.err().contains("names no office"), none.err());
        Run bad = status("{\"smcp\":{\"url\":\"ftp://x\",\"office\":\"o\"}}");
        assertEquals(1, bad.code());
        assertTrue(bad.err().contains("must be http(s)://HOST:PORT"), bad.err());
        Run unset = status("{\"smcp\":{\"url\":\"http://127.0.0.1:9\",\"office\":\"o\",\"tokenEnv\":\"NOT_SET_ANYWHERE\"}}");
        assertTrue(unset.err().contains("the variable NOT_SET_ANYWHERE (tokenEnv) is not set"), unset.err());
    }
}
