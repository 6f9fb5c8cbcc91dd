package cn.agentao.agent.tools.search;

import cn.agentao.agent.util.Cancellation;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The files of a directory tree as the tools see them (git-aware: {@code .git} and ignored files left out). */
public final class WorkspaceFiles {
    private WorkspaceFiles() {}

    /** Up to {@code max} regular files under {@code root}, '/'-separated and relative to it, in walk order. */
    public static List<String> list(Path root, int max) {
        List<String> files = new ArrayList<>();
        try {
            new FileTreeWalker(root, true, max * 4, Cancellation.NONE).walk(e -> {
                if (e.isRegularFile()) files.add(e.relative());
                return files.size() < max;
            });
        } catch (IOException e) {
            // what was found so far
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return files;
    }
}
