package cn.agentao.agent.skills;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The one walk over the folders that hold definitions from Markdown (skills, subagents): the project's folders in
 * order, only when the user trusts the project (otherwise one notice names the folders that were passed over), then
 * the user's own folder in the configuration directory.
 */
public final class DefinitionFolders {
    private DefinitionFolders() {}

    /** Loads the definitions of one folder: {@code origin} is how notices name it, {@code project} whether it is the project's. */
    public interface Loader {
        void load(Path root, String origin, boolean project);
    }

    /**
     * Walks {@code projectDirs} of {@code cwd} (loading them only when {@code projectTrusted}; {@code holdsAny} tells
     * whether a folder of an untrusted project would have given something), then {@code userRoot} (null: none).
     * {@code what} names the definitions in the untrusted notice ("Skills", "Agents").
     */
    public static void walk(Path cwd, List<String> projectDirs, boolean projectTrusted, Path userRoot, String what,
                            Predicate<Path> holdsAny, Loader loader, List<String> notices) {
        List<String> untrusted = new ArrayList<>();
        for (String rel : projectDirs) {
            Path root = cwd.resolve(rel);
            if (!Files.isDirectory(root)) continue;
            if (!projectTrusted) {
                if (holdsAny.test(root)) untrusted.add(rel);
                continue;
            }
            loader.load(root, rel, true);
        }
        if (!untrusted.isEmpty()) {
            String lower = what.toLowerCase(java.util.Locale.ROOT);
            notices.add(what + " in " + String.join(", ", untrusted) + " were not loaded: this project is not trusted. "
                    + "Run `agent trust` in it (or answer Trust when asked) to use its " + lower + ".");
        }
        if (userRoot != null) loader.load(userRoot, userRoot.toString(), false);
    }
}
