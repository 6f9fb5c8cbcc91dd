package cn.agentao.agent.sandbox;

import cn.agentao.agent.permission.ProtectedPaths;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The generated macOS profile. It cannot run on Linux, so the profile text is read by a small model of Seatbelt
 * ({@link Profile}): every rule whose operation and filters match a path is applied in order and the last one
 * decides ({@code (deny default)} otherwise), which is how Seatbelt resolves a deny inside an allowed subpath and an
 * allow inside a denied one. Paths are real temporary directories, so the walk for secrets files runs for real.
 */
class SeatbeltTest {
    @TempDir
    Path dir;
    Path home;
    Path ws;
    Path tmp;

    @BeforeEach
    void layout() throws Exception {
        dir = dir.toRealPath();
        home = Files.createDirectories(dir.resolve("Users/me"));
        ws = Files.createDirectories(home.resolve("src/proj"));
        tmp = dir.resolve("private/tmp/agent-sandbox-1");
        Files.createDirectories(home.resolve(".ssh"));
        Files.writeString(home.resolve(".ssh/id_rsa"), "KEY");
        Files.createDirectories(home.resolve(".m2/repository/org/x"));
        Files.writeString(home.resolve(".m2/settings.xml"), "<password>p</password>");
        Files.createDirectories(ws.resolve("src"));
        Files.writeString(ws.resolve(".env"), "OPENAI_API_KEY=sk-secret");
    }

    private Profile profile(Seatbelt seatbelt, SandboxPolicy policy) throws Exception {
        return new Profile(seatbelt.argv("make test", policy));
    }

    @Test
    void commandsReadTheSystemTheWorkspaceAndTheToolChainsNothingElse() throws Exception {
        Path other = Files.createDirectories(dir.resolve("srv/other"));
        Profile p = profile(new Seatbelt(home, tmp), new SandboxPolicy(List.of(ws), true, false));
        assertTrue(p.allows("file-read-data", Path.of("/usr/lib/libSystem.B.dylib")));
        assertTrue(p.allows("file-read-data", Path.of("/private/etc/hosts")));
        assertTrue(p.allows("file-read-data", Path.of("/System/Library/Frameworks/Foundation.framework/Foundation")));
        assertTrue(p.allows("file-read-data", ws.resolve("src/Main.java")), "the workspace, inside the home");
        assertTrue(p.allows("file-read-data", home.resolve(".m2/repository/org/x/x.jar")), "a tool chain cache");
        assertTrue(p.allows("file-read-data", tmp.resolve("x")), "its temporary directory");

        assertFalse(p.allows("file-read-data", other.resolve("notes.txt")), "another project");
        assertFalse(p.allows("file-read-data", Path.of("/private/var/root/x")));
        assertFalse(p.allows("file-read-data", Path.of("/Volumes/backup/x")));
        assertFalse(p.allows("file-read-data", home.resolve(".ssh/id_rsa")), "the home");
        assertFalse(p.allows("file-read-data", home.resolve(".m2/settings.xml")), "the credentials beside a tool chain");
        assertFalse(p.allows("file-read-data", home), "the home's listing");
        assertTrue(p.allows("file-read-metadata", home), "a path inside the home resolves (its directories can be stat'ed)");
    }

    @Test
    void everySecretsFileIsUnreadableAsOnLinuxEvenOneCreatedLaterOrDeeperThanTheWalk() throws Exception {
        Path deep = Files.createDirectories(ws.resolve("a/b/c/d/e/f/g/h"));
        Files.writeString(ws.resolve("secrets.txt"), "TOKEN=x");
        Files.createSymbolicLink(ws.resolve("src/.env.local"), ws.resolve("secrets.txt"));
        Path extra = Files.createDirectories(dir.resolve("data/shared"));
        Profile p = profile(new Seatbelt(home, tmp), new SandboxPolicy(List.of(ws), false, false, List.of(extra), List.of(), true));
        for (Path secret : List.of(ws.resolve(".env"), ws.resolve(".ENVRC"), ws.resolve("src/.env.production"),
                deep.resolve(".env"), extra.resolve(".env"))) {
            assertFalse(p.allows("file-read-data", secret), secret + " (whether it exists now or not)");
            assertFalse(p.allows("file-read-xattr", secret), secret.toString());
            assertTrue(p.allows("file-read-metadata", secret), "its name and attributes stay visible: " + secret);
        }
        assertFalse(p.allows("file-read-data", ws.resolve("secrets.txt")), "the file a link named .env.local leads to");
        assertTrue(p.allows("file-read-data", ws.resolve("environment.md")), "not every name with env in it");
        assertTrue(p.allows("file-read-data", extra.resolve("data.csv")), "a listed path");
    }

    @Test
    void theSecretNamesAreLinuxsOwn() {
        for (String name : List.of(".env", ".envrc", ".env.local", ".Env", ".ENV.production", "environment", "x.env", ".en")) {
            boolean seatbelt = Pattern.compile(Seatbelt.SECRET_NAME_REGEX).matcher("/w/" + name).find();
            assertEquals(ProtectedPaths.isSecretName(name), seatbelt, name);
        }
    }

    @Test
    void theAgentsConfigurationIsHiddenEvenInsideTheWorkspace() throws Exception {
        Path config = Files.createDirectories(ws.resolve("cfg/agent"));
        Files.writeString(config.resolve("config.json"), "{}");
        Profile p = profile(new Seatbelt(home, tmp, List.of(config), List.of()), new SandboxPolicy(List.of(ws), true, false));
        assertFalse(p.allows("file-read-data", config.resolve("config.json")));
        assertFalse(p.allows("file-write-data", config.resolve("config.json")));
        assertTrue(p.allows("file-read-data", ws.resolve("cfg/other.json")));
    }

    @Test
    void workspaceWriteWritesTheRootsMinusTheProtectedNames() throws Exception {
        Path writable = Files.createDirectories(dir.resolve("cache/bazel"));
        Profile p = profile(new Seatbelt(home, tmp), new SandboxPolicy(List.of(ws), true, false, List.of(), List.of(writable), true));
        assertTrue(p.allows("file-write-create", ws.resolve("src/New.java")));
        assertTrue(p.allows("file-write-data", writable.resolve("out")), "a listed writable path");
        assertTrue(p.allows("file-read-data", writable.resolve("out")));
        for (String name : SandboxPolicy.PROTECTED_NAMES) {
            assertFalse(p.allows("file-write-data", ws.resolve(name)), name);
        }
        assertFalse(p.allows("file-write-create", ws.resolve(".git/hooks/pre-commit")));
        assertFalse(p.allows("file-write-create", ws.resolve("src/.env.local")), "a new secrets file anywhere");
        assertFalse(p.allows("file-write-data", home.resolve(".bashrc")));
        assertFalse(p.allows("network-outbound", Path.of("/")), "no network rule at all: denied by default");
    }

    @Test
    void readOnlyWritesNothingButTheTemporaryDirectory() throws Exception {
        Path writable = Files.createDirectories(dir.resolve("cache/bazel"));
        Profile p = profile(new Seatbelt(home, tmp), new SandboxPolicy(List.of(ws), false, false, List.of(), List.of(writable), true));
        assertFalse(p.allows("file-write-data", ws.resolve("src/Main.java")));
        assertFalse(p.allows("file-write-data", writable.resolve("out")));
        assertTrue(p.allows("file-write-data", tmp.resolve("x")));
        assertTrue(p.allows("file-write-data", Path.of("/dev/null")));
    }

    @Test
    void aSpacesWorkSeesNoToolChainsNorListedPaths() throws Exception {
        Path extra = Files.createDirectories(dir.resolve("data/shared"));
        Profile p = profile(new Seatbelt(home, tmp), new SandboxPolicy(List.of(ws), true, false, List.of(extra), List.of(), true).workspaceOnly());
        assertFalse(p.allows("file-read-data", home.resolve(".m2/repository/org/x/x.jar")));
        assertFalse(p.allows("file-read-data", extra.resolve("data.csv")));
        assertTrue(p.allows("file-read-data", ws.resolve("src/Main.java")));
    }

    @Test
    void theHomeOrTheFilesystemRootAsTheWorkspaceFailsClosed() {
        Seatbelt seatbelt = new Seatbelt(home, tmp);
        assertThrows(Sandbox.SandboxException.class, () -> seatbelt.argv("ls", new SandboxPolicy(List.of(home), false, false)));
        assertThrows(Sandbox.SandboxException.class, () -> seatbelt.argv("ls", new SandboxPolicy(List.of(Path.of("/")), false, false)));
    }

    @Test
    void pathsAreParametersNeverSplicedIntoTheText() throws Exception {
        Path quoted = Files.createDirectories(dir.resolve("ws \"quoted\") (allow file-read*"));
        List<String> argv = new Seatbelt(home, tmp).argv("make test", new SandboxPolicy(List.of(quoted), true, false));
        assertEquals("/usr/bin/sandbox-exec", argv.get(0));
        assertEquals("-p", argv.get(1));
        assertFalse(argv.get(2).contains(dir.toString()), argv.get(2));
        assertTrue(argv.contains("-DROOT_0=" + quoted), argv.toString());
        assertTrue(argv.contains("-DROOT_0_PROTECTED_0=" + quoted.resolve(".git")), argv.toString());
        assertEquals(List.of("--", "/usr/bin/env", "TMPDIR=" + tmp, "/bin/bash", "-c", "make test"), argv.subList(argv.size() - 6, argv.size()));
    }

    /**
     * A model of a Seatbelt profile: rules {@code (allow|deny) OPERATION FILTER…} where a filter is {@code subpath},
     * {@code literal}, {@code regex} or {@code require-all} of filters and {@code require-not}s, and a value a string
     * or {@code (param "NAME")} given by the argv's {@code -D}. The last matching rule decides.
     */
    static final class Profile {
        private final List<List<Object>> rules = new ArrayList<>();

        @SuppressWarnings("unchecked")
        private static List<Object> list(Object o) { return (List<Object>) o; }
        private final Map<String, String> params = new HashMap<>();

        Profile(List<String> argv) {
            for (String a : argv) {
                if (a.equals("--")) break;
                if (a.startsWith("-D")) params.put(a.substring(2, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
            }
            String text = argv.get(2);
            int[] at = {0};
            while (true) {
                skipSpace(text, at);
                if (at[0] >= text.length()) break;
                rules.add(list(parse(text, at)));
            }
        }

        boolean allows(String operation, Path path) {
            boolean allowed = false;
            for (List<Object> rule : rules) {
                String action = (String) rule.get(0);
                if (!action.equals("allow") && !action.equals("deny")) continue;
                if (rule.size() < 2 || !(rule.get(1) instanceof String op)) continue;
                if (op.equals("default")) {
                    allowed = action.equals("allow");
                    continue;
                }
                if (!(op.equals(operation) || (op.endsWith("*") && operation.startsWith(op.substring(0, op.length() - 1))))) continue;
                List<Object> filters = rule.subList(2, rule.size());
                if (filters.isEmpty() || filters.stream().anyMatch(f -> matches(f, path.toString()))) allowed = action.equals("allow");
            }
            return allowed;
        }

        @SuppressWarnings("unchecked")
        private boolean matches(Object filter, String path) {
            List<Object> f = (List<Object>) filter;
            String kind = (String) f.get(0);
            return switch (kind) {
                case "subpath" -> path.equals(value(f.get(1))) || path.startsWith(value(f.get(1)) + "/");
                case "literal" -> path.equals(value(f.get(1)));
                case "regex" -> Pattern.compile(((Regex) f.get(1)).text()).matcher(path).find();
                case "require-all" -> f.subList(1, f.size()).stream().allMatch(x -> matches(x, path));
                case "require-not" -> !matches(f.get(1), path);
                default -> false; // global-name, ipc-posix-name, target: never a path
            };
        }

        @SuppressWarnings("unchecked")
        private String value(Object v) {
            if (v instanceof String s) return s;
            List<Object> p = (List<Object>) v;
            assertEquals("param", p.get(0));
            String value = params.get((String) p.get(1));
            assertNotNull(value, "every parameter is defined: " + p.get(1));
            return value;
        }

        record Regex(String text) {}

        private static Object parse(String t, int[] at) {
            skipSpace(t, at);
            char c = t.charAt(at[0]);
            if (c == '(') {
                at[0]++;
                List<Object> list = new ArrayList<>();
                while (true) {
                    skipSpace(t, at);
                    if (t.charAt(at[0]) == ')') {
                        at[0]++;
                        return list;
                    }
                    list.add(parse(t, at));
                }
            }
            if (c == '"' || (c == '#' && t.charAt(at[0] + 1) == '"')) {
                boolean regex = c == '#';
                at[0] += regex ? 2 : 1;
                int end = t.indexOf('"', at[0]);
                String s = t.substring(at[0], end);
                at[0] = end + 1;
                return regex ? new Regex(s) : s;
            }
            int start = at[0];
            while (at[0] < t.length() && !Character.isWhitespace(t.charAt(at[0])) && t.charAt(at[0]) != '(' && t.charAt(at[0]) != ')') at[0]++;
            return t.substring(start, at[0]);
        }

        private static void skipSpace(String t, int[] at) {
            while (at[0] < t.length() && Character.isWhitespace(t.charAt(at[0]))) at[0]++;
        }
    }
}
