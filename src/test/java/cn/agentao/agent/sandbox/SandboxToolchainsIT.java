package cn.agentao.agent.sandbox;

import cn.agentao.agent.permission.Mode;
import cn.agentao.agent.core.tool.CommandRunner;
import cn.agentao.agent.core.tool.local.LocalCommandRunner;
import cn.agentao.agent.util.Cancellation;
import cn.agentao.agent.util.UserHome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A project's own tests run inside the workspace-write sandbox with this machine's real tool chains, although the
 * sandbox shows only the system's programs, the workspace and the tool chain caches of the home: Maven offline
 * (from the Maven wrapper's distribution under {@code ~/.m2/wrapper} when there is one), npm, cargo. Each is
 * skipped where that tool chain is not installed, or cannot run the project even outside the sandbox.
 */
class SandboxToolchainsIT {
    @TempDir
    Path dir;

    private static Sandbox sandbox() {
        Sandboxes s = Sandboxes.fromEnvironment(System.getenv());
        assumeTrue(s.available(), "bubblewrap works here");
        return s.sandbox().orElseThrow();
    }

    private static CommandRunner.Result run(Confinement box, String command, Path ws) throws Exception {
        return new LocalCommandRunner().run(new CommandRunner.Spec(command, ws, Duration.ofSeconds(300), 256 * 1024, box),
                new CommandRunner.Listener() { }, Cancellation.NONE);
    }

    /** Runs {@code command} outside (must work, else the test is skipped: nothing to compare), then inside. */
    private static CommandRunner.Result inside(String command, Path ws, String success) throws Exception {
        Sandbox s = sandbox();
        CommandRunner.Result out = run(null, command, ws);
        assumeTrue(out.exitCode() != null && out.exitCode() == 0 && out.output().contains(success),
                "works outside the sandbox here: " + out.output());
        try (Stream<Path> made = Files.walk(ws).sorted(java.util.Comparator.reverseOrder())) { // start afresh inside
            for (Path p : (Iterable<Path>) made::iterator) {
                String rel = ws.relativize(p).toString();
                if (rel.startsWith("target") || rel.equals("Cargo.lock") || rel.startsWith("node_modules")) Files.delete(p);
            }
        }
        Confinement box = new Confinement(s, SandboxPolicy.forMode(Mode.WORKSPACE_WRITE, List.of(ws)).orElseThrow());
        return run(box, command, ws);
    }

    private static Optional<Path> onPath(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(d.isEmpty() ? "." : d, program);
            if (p.isAbsolute() && Files.isExecutable(p)) return Optional.of(p);
        }
        return Optional.empty();
    }

    @Test
    void mavenOfflineTestsRunInTheSandbox() throws Exception {
        Path wrapper = UserHome.current().resolve(".m2/wrapper/dists");
        Optional<Path> mvn = Optional.empty();
        if (Files.isDirectory(wrapper)) {
            try (Stream<Path> all = Files.walk(wrapper, 4)) {
                mvn = all.filter(p -> p.endsWith("bin/mvn") && Files.isExecutable(p)).findFirst();
            }
        }
        if (mvn.isEmpty()) mvn = onPath("mvn");
        assumeTrue(mvn.isPresent(), "Maven is installed");
        Path ws = Files.createDirectories(dir.resolve("mvn"));
        Files.writeString(ws.resolve("pom.xml"), """
                <project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
                <groupId>t</groupId><artifactId>t</artifactId><version>1</version>
                <properties><maven.compiler.release>17</maven.compiler.release><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
                <dependencies><dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.14.1</version><scope>test</scope></dependency></dependencies>
                <build><plugins>
                <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
                <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.14.0</version></plugin>
                <plugin><artifactId>maven-surefire-plugin</artifactId><version>3.5.4</version></plugin>
                </plugins></build></project>
                """);
        Path test = Files.createDirectories(ws.resolve("src/test/java/t")).resolve("SumTest.java");
        Files.writeString(test, "package t;\npublic class SumTest { @org.junit.jupiter.api.Test void adds() { "
                + "org.junit.jupiter.api.Assertions.assertEquals(4, 2 + 2); } }\n");
        CommandRunner.Result r = inside(mvn.get() + " -o -B test", ws, "BUILD SUCCESS");
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().contains("Tests run: 1, Failures: 0"), r.output());
    }

    @Test
    void npmTestRunsInTheSandbox() throws Exception {
        Optional<Path> npm = onPath("npm");
        assumeTrue(npm.isPresent() && onPath("node").isPresent(), "npm and node are installed");
        Path ws = Files.createDirectories(dir.resolve("npm"));
        Files.writeString(ws.resolve("package.json"), """
                {"name": "t", "version": "1.0.0", "private": true,
                 "scripts": {"test": "node test.js"}}
                """);
        Files.writeString(ws.resolve("test.js"), "require('assert').strictEqual(2 + 2, 4); console.log('npm-test-ok');\n");
        CommandRunner.Result r = inside(npm.get() + " --no-update-notifier --offline test", ws, "npm-test-ok");
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().contains("npm-test-ok"), r.output());
    }

    @Test
    void cargoTestRunsInTheSandbox() throws Exception {
        Optional<Path> cargo = onPath("cargo");
        Path home = UserHome.current().resolve(".cargo/bin/cargo");
        if (cargo.isEmpty() && Files.isExecutable(home)) cargo = Optional.of(home);
        assumeTrue(cargo.isPresent(), "cargo is installed");
        Path ws = Files.createDirectories(dir.resolve("cargo"));
        Files.writeString(ws.resolve("Cargo.toml"), "[package]\nname = \"t\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
        Files.createDirectories(ws.resolve("src"));
        Files.writeString(ws.resolve("src/lib.rs"), "#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(2 + 2, 4); }\n}\n");
        CommandRunner.Result r = inside(cargo.get() + " test --offline", ws, "test result: ok");
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().contains("test result: ok. 1 passed"), r.output());
    }
}
