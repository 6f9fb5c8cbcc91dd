package cn.agentao.agent.release;

import cn.agentao.agent.testing.AgentProcess;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The standalone release archive as a user without Java gets it: built by {@code scripts/build-archive.sh --fast}
 * (the release's runtime, app and AOT cache; only the compression is lighter), unpacked into an empty directory and
 * run with no JDK on PATH and no JAVA_HOME.
 */
class ArchiveIT {
    @TempDir
    static Path tmp;
    static Path unpacked;
    static Path unpackedPlain;
    static String version;

    @BeforeAll
    static void buildAndUnpack() throws Exception {
        Path home = AgentProcess.home();
        Path out = Files.createDirectories(tmp.resolve("out"));
        Map<String, String> buildEnv = Map.of("JAVA_HOME", System.getProperty("java.home"), "PATH", System.getenv("PATH"),
                "HOME", System.getProperty("user.home"));
        run(home, buildEnv, Duration.ofMinutes(8), "bash", home.resolve("scripts/build-archive.sh").toString(), "--fast", "--out", out.toString());
        List<Path> standalone;
        try (Stream<Path> s = Files.list(out)) { standalone = s.filter(p -> p.toString().matches(".*_64\\.zip")).toList(); }
        assertEquals(1, standalone.size(), "one standalone archive: " + standalone);
        String name = standalone.getFirst().getFileName().toString();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("agent-(.+)-(linux|osx)-(x86_64|aarch_64)\\.zip").matcher(name);
        assertTrue(m.matches(), name);
        version = m.group(1);

        unpacked = unzip(standalone.getFirst(), "empty");
        unpackedPlain = unzip(out.resolve("agent-" + version + ".zip"), "empty-plain");
    }

    static Path unzip(Path archive, String into) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve(into));
        run(dir, Map.of("PATH", System.getenv("PATH")), Duration.ofMinutes(2), "unzip", "-q", archive.toString());
        return dir;
    }

    /** A user's environment without Java (see {@link AcpSmoke#noJavaEnvironment}). */
    static Map<String, String> noJavaEnvironment(String user) throws IOException {
        return AcpSmoke.noJavaEnvironment(Files.createDirectories(tmp.resolve(user)));
    }

    @Test
    void holdsItsOwnRuntimeTheAppAndAnAotCacheForThatRuntime() {
        Path agent = unpacked.resolve("agent");
        assertTrue(Files.isExecutable(agent.resolve("bin/agent")), "bin/agent executable");
        assertTrue(Files.isRegularFile(agent.resolve("bin/agent.cmd")), "the Windows launcher");
        assertTrue(Files.isExecutable(agent.resolve("runtime/bin/java")), "a runtime of its own");
        assertFalse(Files.exists(agent.resolve("runtime/bin/javac")), "a runtime, not a JDK");
        assertTrue(Files.isRegularFile(agent.resolve("app/agent.jar")));
        if (Runtime.version().feature() >= 25) {
            assertTrue(Files.isRegularFile(agent.resolve("app/agent.aot")), "the AOT cache trained on the archive's runtime");
        }
    }

    @Test
    void versionRunsWithoutJavaInstalled() throws Exception {
        Result r = run(tmp, noJavaEnvironment("version-user"), Duration.ofMinutes(1), unpacked.resolve("agent/bin/agent").toString(), "--version");
        assertTrue(r.stdout.startsWith("agent " + version + "\n"), r.stdout);
        // A refused or stale AOT cache is a JVM warning on stderr: there must be none.
        assertEquals("", r.stderr, "nothing on stderr (the AOT cache was accepted)");
    }

    @Test
    void carriesTheReadmeAndTheLicense() throws Exception {
        for (Path dir : List.of(unpacked, unpackedPlain)) {
            assertTrue(Files.readString(dir.resolve("agent/README.md")).startsWith("# agent"), "the README in " + dir);
            assertTrue(Files.readString(dir.resolve("agent/LICENSE")).contains("MIT License"), "the LICENSE in " + dir);
        }
    }

    /** Unpacked where the conversations are kept (what the README once said): the launcher says what removing it would do. */
    @Test
    void warnsWhenUnpackedWhereTheConversationsAreKept() throws Exception {
        Path share = Files.createDirectories(tmp.resolve("old-layout/.local/share"));
        Path saved = Files.createDirectories(share.resolve("agent/sessions")).resolve("kept.jsonl");
        Files.writeString(saved, "{}\n");
        run(share, Map.of("PATH", System.getenv("PATH")), Duration.ofMinutes(2), "unzip", "-q", "-o",
                tmp.resolve("out").resolve("agent-" + version + ".zip").toString());
        Map<String, String> env = noJavaEnvironment("old-layout-user");
        env.put("JAVA_HOME", System.getProperty("java.home"));
        Result r = run(tmp, env, Duration.ofMinutes(1), share.resolve("agent/bin/agent").toString(), "--version");
        assertTrue(r.stdout.startsWith("agent " + version), r.stdout);
        assertTrue(r.stderr.contains("holds both this program and your saved conversations")
                && r.stderr.contains(share.resolve("agent/sessions").toString()), r.stderr);
        assertEquals("{}\n", Files.readString(saved), "unpacking over it kept the conversation");
    }

    @Test
    void thePlainArchiveRunsOnTheJdkInJavaHome() throws Exception {
        Path agent = unpackedPlain.resolve("agent");
        assertFalse(Files.exists(agent.resolve("runtime")), "no runtime in the plain archive");
        assertFalse(Files.exists(agent.resolve("app/agent.aot")), "no cache: one made by another JVM would be refused");
        Map<String, String> env = noJavaEnvironment("plain-user");
        env.put("JAVA_HOME", System.getProperty("java.home"));
        Result r = run(tmp, env, Duration.ofMinutes(1), agent.resolve("bin/agent").toString(), "--version");
        assertEquals("agent " + version + "\nJava " + Runtime.version() + "\n", r.stdout);
    }

    @Test
    void servesAWholeAcpSessionAgainstTheScriptedModel() throws Exception {
        AcpSmoke.run(unpacked.resolve("agent/bin/agent"), noJavaEnvironment("acp-user"), Files.createDirectories(tmp.resolve("smoke")));
    }

    record Result(String stdout, String stderr) {}

    static Result run(Path dir, Map<String, String> env, Duration timeout, String... cmd) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        Path err = Files.createTempFile(tmp, "err", ".txt");
        Path outFile = Files.createTempFile(tmp, "out", ".txt");
        pb.redirectError(err.toFile()).redirectOutput(outFile.toFile());
        Process p = pb.start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            fail(String.join(" ", cmd) + " did not finish within " + timeout);
        }
        Result r = new Result(Files.readString(outFile, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + " failed:\n" + r.stdout + r.stderr);
        return r;
    }
}
