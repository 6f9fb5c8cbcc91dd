package cn.agentao.agent.sandbox;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The protected names ({@link SandboxPolicy#PROTECTED_NAMES}, in any case) that a command in a writable sandbox
 * created at the top of a workspace root. A missing one is not masked inside the sandbox (a mask would show as a
 * placeholder device or directory in {@code ls -la}, and leave an empty file on the host while the command runs),
 * so the command can create one; but an {@code AGENTS.md}, {@code .agent/mcp.json}, {@code .env} or {@code .git}
 * that a command made must not be obeyed by the agent or by git afterwards. So the names at the top of each root
 * are noted before the command, and, once it has ended (its pid namespace is gone, nothing of it still runs), each
 * protected name that is new is renamed {@code NAME.disabled-by-agent} and the model is told.
 */
public final class CreatedProtectedNames {
    private static final Logger log = LoggerFactory.getLogger(CreatedProtectedNames.class);

    private final List<Path> roots;
    private final Set<Path> before;

    private CreatedProtectedNames(List<Path> roots, Set<Path> before) {
        this.roots = roots;
        this.before = before;
    }

    /** Notes the protected names present now at the top of each root. */
    public static CreatedProtectedNames before(List<Path> roots) {
        List<Path> real = roots.stream().map(CreatedProtectedNames::real).distinct().toList();
        Set<Path> seen = new HashSet<>();
        for (Path r : real) seen.addAll(protectedIn(r));
        return new CreatedProtectedNames(real, seen);
    }

    /** Moves aside each protected name that was not there before; what was done, for the model ("AGENTS.md renamed …"). */
    public List<String> after() {
        List<String> done = new ArrayList<>();
        for (Path r : roots) {
            for (Path p : protectedIn(r)) {
                if (before.contains(p)) continue;
                try {
                    Path target = PlantedGitCode.moveAside(p);
                    done.add(r.relativize(p) + " renamed " + target.getFileName());
                } catch (IOException e) {
                    log.warn("could not move aside {}, which a sandboxed command created: {}", p, e.getMessage());
                    done.add(r.relativize(p) + " could NOT be moved aside (" + e.getMessage() + "); remove it yourself");
                }
            }
        }
        return done;
    }

    /** What the model and the user are told of what {@link #after} did. */
    public static String describe(List<String> moved) {
        return "[The command created files the sandbox keeps from commands (they steer the agent or git, or hold "
                + "keys), so they were moved aside and are not used: " + String.join("; ", moved) + ". Create them "
                + "with the file tools, which ask, if they are meant.]";
    }

    private static List<Path> protectedIn(Path root) {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> list = Files.list(root)) {
            list.filter(e -> SandboxPolicy.PROTECTED_NAMES.stream().anyMatch(n -> n.equalsIgnoreCase(e.getFileName().toString())))
                    .filter(e -> Files.exists(e, LinkOption.NOFOLLOW_LINKS)).sorted().forEach(out::add);
        } catch (IOException e) {
            // a root that cannot be listed: nothing to compare
        }
        return out;
    }

    private static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p.toAbsolutePath().normalize();
        }
    }
}
