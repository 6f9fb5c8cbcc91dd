package cn.agentao.agent.sandbox;

import cn.agentao.agent.permission.ProtectedPaths;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The secrets files of a workspace root ({@code .env}, {@code .envrc}, {@code .env.local}, … in any case:
 * {@link ProtectedPaths#isSecretName}) that a sandboxed command must read as empty: found before each command by a
 * breadth-first walk that follows no links into directories, goes {@value #MAX_DEPTH} levels deep, stops after
 * {@value #MAX_ENTRIES} entries and skips only {@code .git} and {@code node_modules} (a build directory may hold a
 * copied {@code .env}). A file found through a link is hidden where it really is. Files beyond the bound are not
 * found (see docs/permissions.md).
 */
final class SecretFiles {
    static final int MAX_ENTRIES = 2000;
    static final int MAX_DEPTH = 6;
    private static final Set<String> SKIPPED = Set.of(".git", "node_modules");

    private SecretFiles() {}

    /** The regular files to hide in {@code root} (real paths), in the order found. */
    static Set<Path> in(Path root) {
        Set<Path> found = new LinkedHashSet<>();
        BoundedWalk.walk(root, MAX_DEPTH, MAX_ENTRIES, (e, name, depth) -> {
            if (ProtectedPaths.isSecretName(name) && Files.isRegularFile(e)) { // a link: where it leads
                found.add(real(e));
                return false;
            }
            return !SKIPPED.contains(name);
        });
        return found;
    }

    private static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p;
        }
    }
}
