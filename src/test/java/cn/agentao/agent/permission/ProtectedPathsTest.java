package cn.agentao.agent.permission;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The agent's and git's own files: recognised by name, through links, and as a git directory under another name. */
class ProtectedPathsTest {
    @TempDir
    Path dir;
    Path ws;
    Workspace workspace;

    @BeforeEach
    void setUp() throws Exception {
        ws = Files.createDirectories(dir.toRealPath().resolve("ws"));
        workspace = new Workspace(ws, List.of(), dir);
    }

    private boolean isProtected(String relative) {
        return ProtectedPaths.reason(ws.resolve(relative), workspace).isPresent();
    }

    @Test
    void namesThatSteerTheAgentOrGit() {
        for (String p : List.of(".agent/mcp.json", ".agent/commands/x.md", ".env", ".env.production", "a/.envrc",
                "AGENTS.md", "docs/agents.MD", "AGENTAO.md", "CLAUDE.md", ".git/hooks/pre-commit", "sub/.git", "vendor/.GIT/config")) {
            assertTrue(isProtected(p), p);
        }
        for (String p : List.of("src/Main.java", "environment.md", "agent/notes.md", "README.md", "config/app.yaml",
                "refs/list.txt", "objects/a.bin", "HEAD.md")) {
            assertFalse(isProtected(p), p);
        }
    }

    @Test
    void aLinkToAProtectedFileIsProtected() throws Exception {
        Files.createDirectories(ws.resolve(".agent"));
        Files.writeString(ws.resolve(".agent/mcp.json"), "{}");
        Files.createSymbolicLink(ws.resolve("innocent.json"), ws.resolve(".agent/mcp.json"));
        Files.createSymbolicLink(ws.resolve("cfg"), ws.resolve(".agent"));
        assertTrue(isProtected("innocent.json"));
        assertTrue(isProtected("cfg/new.json"));
    }

    @Test
    void aGitDirectoryAssembledWriteByWriteIsCaughtWhateverTheOrder() throws Exception {
        for (List<String> order : List.of(List.of("HEAD", "objects/x", "refs/heads/main"),
                List.of("objects/x", "refs/heads/main", "HEAD"), List.of("config", "HEAD"))) {
            Path repo = Files.createDirectories(ws.resolve("r" + order.hashCode()));
            boolean asked = false;
            for (String entry : order) {
                asked |= ProtectedPaths.reason(repo.resolve(entry), workspace).isPresent();
                Path f = repo.resolve(entry);
                Files.createDirectories(f.getParent());
                Files.writeString(f, "x");
            }
            assertTrue(asked, "some write of " + order + " must be asked");
            assertTrue(ProtectedPaths.reason(repo.resolve("hooks/post-checkout"), workspace).isPresent(), order.toString());
        }
    }

    @Test
    void aLoneHeadFileOrAConfigDirectoryIsOrdinary() throws Exception {
        Files.createDirectories(ws.resolve("src/config"));
        assertFalse(isProtected("src/config/app.yaml"));
        assertFalse(isProtected("notes/HEAD"));
    }
}
