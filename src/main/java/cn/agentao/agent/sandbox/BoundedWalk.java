package cn.agentao.agent.sandbox;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The walk the sandbox makes of a workspace root before each command: breadth first (shallow entries are found
 * before a large directory uses up the budget), following no links into directories, at most {@code maxDepth}
 * levels (the root's entries are level 1) and {@code maxEntries} entries; unreadable directories are passed over.
 */
final class BoundedWalk {
    /** Sees each entry; returns whether to go into it when it is a directory. */
    interface Visitor {
        boolean visit(Path entry, String name, int depth);
    }

    private BoundedWalk() {}

    static void walk(Path root, int maxDepth, int maxEntries, Visitor visitor) {
        ArrayDeque<Path> level = new ArrayDeque<>(List.of(root));
        int seen = 0;
        for (int depth = 1; depth <= maxDepth && !level.isEmpty(); depth++) {
            ArrayDeque<Path> next = new ArrayDeque<>();
            for (Path dir : level) {
                try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
                    for (Path e : entries) {
                        if (++seen > maxEntries) return;
                        if (visitor.visit(e, e.getFileName().toString(), depth) && depth < maxDepth
                                && Files.isDirectory(e, LinkOption.NOFOLLOW_LINKS)) {
                            next.add(e);
                        }
                    }
                } catch (IOException | DirectoryIteratorException unreadable) {
                    // a command cannot get at what the agent cannot read either
                }
            }
            level = next;
        }
    }
}
