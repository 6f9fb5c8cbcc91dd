package cn.agentao.agent.sandbox;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The secrets files the sandbox hides, on a real directory tree: at any depth, past the first thousands of entries,
 * and those that appear, move or go between two commands (the index is brought up to date before each).
 */
class SecretFilesTest {
    @TempDir
    Path dir;

    @Test
    void aSecretsFileAtAnyDepthIsFound() throws Exception {
        Path ws = dir.toRealPath();
        Path deep = Files.createDirectories(ws.resolve("a/b/c/d/e/f/g/h/i/j"));
        Files.writeString(deep.resolve(".env"), "KEY=1");
        Files.writeString(ws.resolve("a/.ENVRC"), "export KEY=1");
        Files.createDirectories(ws.resolve("node_modules/pkg"));
        Files.writeString(ws.resolve("node_modules/pkg/.env"), "example");
        Set<Path> found = SecretFiles.in(ws);
        assertTrue(found.contains(deep.resolve(".env")), "ten levels down: " + found);
        assertTrue(found.contains(ws.resolve("a/.ENVRC")), found.toString());
        assertFalse(found.contains(ws.resolve("node_modules/pkg/.env")), "a package's own example is passed over");
    }

    @Test
    void aSecretsFileBehindThousandsOfEntriesIsFound() throws Exception {
        Path ws = dir.toRealPath();
        Path many = Files.createDirectories(ws.resolve("aaa-generated"));
        for (int i = 0; i < 3000; i++) Files.createFile(many.resolve("f" + i));
        Path late = Files.createDirectories(ws.resolve("zzz/config"));
        Files.writeString(late.resolve(".env.production"), "KEY=1");
        assertTrue(SecretFiles.in(ws).contains(late.resolve(".env.production")));
    }

    /** Every directory as if last changed an hour ago: the index then relies on their modification times. */
    private static Path settled(Path ws) throws Exception {
        try (var all = Files.walk(ws)) {
            for (Path p : all.filter(Files::isDirectory).toList()) {
                Files.setLastModifiedTime(p, FileTime.from(Instant.now().minus(Duration.ofHours(1))));
            }
        }
        return ws;
    }

    @Test
    void whatChangesBetweenCommandsIsSeenByTheNext() throws Exception {
        Path ws = dir.toRealPath();
        Path deep = Files.createDirectories(ws.resolve("services/api/config/local/x/y/z"));
        assertEquals(Set.of(), SecretFiles.in(settled(ws)));

        Files.writeString(deep.resolve(".env.local"), "KEY=1"); // e.g. `vercel env pull` run outside the sandbox
        assertEquals(Set.of(deep.resolve(".env.local")), SecretFiles.in(ws), "created deep between two commands");
        settled(ws);

        Path moved = ws.resolve("services/web");
        Files.move(ws.resolve("services/api"), moved);
        assertEquals(Set.of(moved.resolve("config/local/x/y/z/.env.local")), SecretFiles.in(ws), "found where it moved to");
        settled(ws);

        Path newTree = Files.createDirectories(ws.resolve("tools/new/deeper/still"));
        Files.writeString(newTree.resolve(".env"), "KEY=2");
        Files.writeString(ws.resolve("secret.txt"), "KEY=3");
        Files.createSymbolicLink(ws.resolve("tools/.env"), ws.resolve("secret.txt"));
        assertEquals(Set.of(moved.resolve("config/local/x/y/z/.env.local"), newTree.resolve(".env"), ws.resolve("secret.txt")),
                SecretFiles.in(ws), "a new directory tree, and where a link named .env leads");
        settled(ws);

        Files.delete(moved.resolve("config/local/x/y/z/.env.local"));
        assertEquals(Set.of(newTree.resolve(".env"), ws.resolve("secret.txt")), SecretFiles.in(ws), "a deleted one is no longer bound");
    }
}
