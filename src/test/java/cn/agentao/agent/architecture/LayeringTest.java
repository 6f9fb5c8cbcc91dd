package cn.agentao.agent.architecture;

import cn.agentao.agent.core.Engine;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The package picture, enforced on the compiled classes (every type a class refers to is named in its constant
 * pool as {@code cn/agentao/agent/...}, whether imported, written out in full or only inferred): the core knows the
 * tool contract it owns, never the built-in tools, the connectors, the front doors or the command line. New
 * capabilities plug in as tool sources and hosts instead.
 */
class LayeringTest {
    /** Packages (as class-file names) the core must not refer to. */
    private static final List<String> FORBIDDEN_TO_CORE = List.of(
            "cn/agentao/agent/tools/", "cn/agentao/agent/connect/", "cn/agentao/agent/door/", "cn/agentao/agent/cli/");

    @Test
    void theCoreDependsOnNoToolsConnectorsDoorsOrCommandLine() throws Exception {
        Path core = mainClasses().resolve("cn/agentao/agent/core");
        List<String> violations = new ArrayList<>();
        List<Path> classes;
        try (Stream<Path> walk = Files.walk(core)) {
            classes = walk.filter(p -> p.toString().endsWith(".class")).toList();
        }
        assertFalse(classes.isEmpty(), "no compiled core classes under " + core);
        for (Path c : classes) {
            String pool = new String(Files.readAllBytes(c), StandardCharsets.ISO_8859_1);
            for (String forbidden : FORBIDDEN_TO_CORE) {
                int at = pool.indexOf(forbidden);
                if (at >= 0) violations.add(core.relativize(c) + " refers to " + typeAt(pool, at));
            }
        }
        assertEquals(List.of(), violations);
    }

    /** The name of the type starting at {@code at} in the class file's text, for the message. */
    private static String typeAt(String pool, int at) {
        int end = at;
        while (end < pool.length() && isNamePart(pool.charAt(end))) end++;
        return pool.substring(at, end).replace('/', '.');
    }

    private static boolean isNamePart(char c) {
        return c < 128 && (Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '/');
    }

    private static Path mainClasses() throws URISyntaxException, IOException {
        Path root = Path.of(Engine.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (!Files.isDirectory(root)) throw new IOException("the main classes are not a directory: " + root);
        return root;
    }
}
