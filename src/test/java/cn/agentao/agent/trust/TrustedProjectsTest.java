package cn.agentao.agent.trust;

import cn.agentao.agent.cli.TrustCommand;
import cn.agentao.agent.connect.mcp.ProjectMcpFile;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** The user's list of trusted projects: tied to the project's real path and to the exact mcp.json seen. */
class TrustedProjectsTest {
    @TempDir
    Path dir;
    Path project;
    TrustedProjects trust;

    @BeforeEach
    void setUp() throws Exception {
        project = Files.createDirectories(dir.resolve("project"));
        trust = new TrustedProjects(dir.resolve("config/agent/trusted-projects.json"));
    }

    private ProjectMcpFile mcp(String text) throws Exception {
        Files.createDirectories(project.resolve(".agent"));
        Files.writeString(project.resolve(".agent/mcp.json"), text);
        return ProjectMcpFile.read(project).orElseThrow();
    }

    @Test
    void nothingIsTrustedUntilTheUserSaysSo() throws Exception {
        ProjectMcpFile file = mcp("{\"mcpServers\":{}}");
        assertFalse(trust.trusted(project));
        assertFalse(trust.approved(project, file));
        assertFalse(trust.declined(project, file));
    }

    @Test
    void trustCoversTheFileSeenAndAChangedFileIsNotApproved() throws Exception {
        ProjectMcpFile seen = mcp("{\"mcpServers\":{\"a\":{\"command\":\"a\"}}}");
        trust.record(project, true, seen);
        assertTrue(trust.trusted(project));
        assertTrue(trust.approved(project, seen));
        ProjectMcpFile changed = mcp("{\"mcpServers\":{\"a\":{\"command\":\"evil\"}}}");
        assertFalse(trust.approved(project, changed));
        assertTrue(trust.trusted(project), "the project's .env stays trusted");
    }

    @Test
    void trustCoversTheProjectFilesTheServersStartFrom() throws Exception {
        Files.createDirectories(project.resolve("mcp/lib"));
        Files.writeString(project.resolve("mcp/start.sh"), "exec node server.js\n");
        Files.writeString(project.resolve("server.js"), "serve()\n");
        Files.writeString(project.resolve("mcp/lib/util.py"), "x = 1\n");
        Files.writeString(project.resolve("mcp/__init__.py"), "");
        ProjectMcpFile seen = mcp("""
                {"mcpServers":{"a":{"command":"sh","args":["mcp/start.sh"]},
                 "b":{"command":"node","args":["--require=./server.js","missing.js"]},
                 "c":{"command":"python3","args":["-m","mcp.lib"]},
                 "d":{"command":"sh","args":["${HOME}/x.sh", "../outside.sh"]}}}""");
        assertEquals(java.util.Set.of("mcp/start.sh", "server.js", "mcp/lib"), seen.startFiles().keySet());
        trust.record(project, true, seen);
        assertTrue(trust.approved(project, ProjectMcpFile.read(project).orElseThrow()));

        Files.writeString(project.resolve("mcp/lib/util.py"), "import os; os.system('evil')\n");
        Files.writeString(project.resolve("mcp/start.sh"), "evil\n");
        ProjectMcpFile now = ProjectMcpFile.read(project).orElseThrow();
        assertFalse(trust.approved(project, now), "a changed start file is asked about again");
        assertEquals(java.util.List.of("mcp/lib", "mcp/start.sh"), trust.changedStartFiles(project, now));
        assertTrue(trust.trusted(project), "the project's .env stays trusted");

        Files.writeString(project.resolve("missing.js"), "new\n");
        Files.writeString(project.resolve("mcp/start.sh"), "exec node server.js\n");
        Files.writeString(project.resolve("mcp/lib/util.py"), "x = 1\n");
        ProjectMcpFile appeared = ProjectMcpFile.read(project).orElseThrow();
        assertEquals(java.util.List.of("missing.js"), trust.changedStartFiles(project, appeared), "a file that appears counts too");
    }

    @Test
    void aTrustRecordedBeforeStartFilesWereKeptIsAskedAgainWhenTheServersStartProjectFiles() throws Exception {
        Files.writeString(project.resolve("start.sh"), "true\n");
        ProjectMcpFile seen = mcp("{\"mcpServers\":{\"a\":{\"command\":\"sh\",\"args\":[\"start.sh\"]}}}");
        Files.createDirectories(trust.file().getParent());
        Files.writeString(trust.file(), "{\"projects\":{\"" + project.toRealPath() + "\":{\"trusted\":true,\"mcpJson\":\"" + seen.digest() + "\"}}}");
        assertFalse(trust.approved(project, seen));
        assertEquals(java.util.List.of("start.sh"), trust.changedStartFiles(project, seen));
    }

    @Test
    void neverIsKeptForThatFileOnly() throws Exception {
        ProjectMcpFile seen = mcp("{\"mcpServers\":{\"a\":{\"command\":\"a\"}}}");
        trust.record(project, false, seen);
        assertTrue(trust.declined(project, seen));
        assertFalse(trust.trusted(project));
        assertFalse(trust.declined(project, mcp("{\"mcpServers\":{\"b\":{\"command\":\"b\"}}}")));
    }

    @Test
    void aLinkToATrustedProjectIsTheSameProject() throws Exception {
        trust.record(project, true, null);
        Path link = Files.createSymbolicLink(dir.resolve("link"), project);
        assertTrue(trust.trusted(link));
        assertTrue(trust.forget(link));
        assertFalse(trust.trusted(project));
    }

    @Test
    void aBrokenFileTrustsNothing() throws Exception {
        Files.createDirectories(trust.file().getParent());
        Files.writeString(trust.file(), "{ broken");
        assertFalse(trust.trusted(project));
        assertTrue(trust.problem().orElseThrow().contains("not a JSON object"));
        trust.record(project, true, null);
        assertTrue(trust.trusted(project), "recording replaces the broken file");
        assertTrue(trust.problem().isEmpty());
    }

    @Test
    void theCommandLineTrustsAndRevokes() throws Exception {
        mcp("{\"mcpServers\":{\"build\":{\"command\":\"make\",\"args\":[\"serve\"]}}}");
        Map<String, String> env = Map.of("XDG_CONFIG_HOME", dir.resolve("config").toString());
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new TrustCommand(cn.agentao.agent.config.AgentConfig.load(env))).setOut(new PrintWriter(out));
        assertEquals(0, cli.execute(project.toString()));
        assertTrue(out.toString().contains("build → make serve"), out.toString());
        assertTrue(trust.approved(project, ProjectMcpFile.read(project).orElseThrow()));
        assertEquals(0, cli.execute("--revoke", project.toString()));
        assertFalse(trust.trusted(project));
        assertEquals(1, new CommandLine(new TrustCommand(cn.agentao.agent.config.AgentConfig.load(env))).setErr(new PrintWriter(new StringWriter()))
                .execute(dir.resolve("missing").toString()));
    }
}
