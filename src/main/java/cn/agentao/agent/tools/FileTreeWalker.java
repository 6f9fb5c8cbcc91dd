package cn.agentao.agent.tools;

import cn.agentao.agent.util.Cancellation;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Walks a directory tree for glob and grep: depth first in name order, never following symbolic links,
 * skipping {@code .git} and (unless told otherwise) what {@code .gitignore} files ignore — those in the tree,
 * those between the repository top and the start directory, and {@code .git/info/exclude}. Bounded by a
 * number of entries; stops on interrupt or cancellation. Each entry's type costs an {@code lstat}, unless a
 * {@link Ripgrep.Listing} already says the entry is a regular file or a directory (then its attributes are read
 * only if asked for).
 */
final class FileTreeWalker {

    /** One file or directory; {@code relative} is from the start directory, '/'-separated. */
    static final class Entry {
        private final Path path;
        private final String relative;
        private final boolean regularFile;
        private final boolean directory;
        private BasicFileAttributes attributes;

        Entry(Path path, String relative, BasicFileAttributes attributes) {
            this(path, relative, attributes.isRegularFile(), attributes.isDirectory(), attributes);
        }

        private Entry(Path path, String relative, boolean regularFile, boolean directory, BasicFileAttributes attributes) {
            this.path = path;
            this.relative = relative;
            this.regularFile = regularFile;
            this.directory = directory;
            this.attributes = attributes;
        }

        Path path() { return path; }

        String relative() { return relative; }

        /** The last segment of the path. */
        String name() {
            return relative.substring(relative.lastIndexOf('/') + 1);
        }

        boolean isRegularFile() { return regularFile; }

        boolean isDirectory() { return directory; }

        /** The size when already known, else -1 (an entry known from a listing). */
        long knownSize() {
            return attributes == null ? -1 : attributes.size();
        }

        /** The attributes of the entry itself (not of a link's target), read on first use when not yet known. */
        BasicFileAttributes attributes() throws IOException {
            if (attributes == null) attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return attributes;
        }
    }

    interface Visitor {
        /** Returns false to stop the walk. */
        boolean visit(Entry entry) throws IOException, InterruptedException;
    }

    private final Path root;
    private final boolean honourGitIgnore;
    private final int maxEntries;
    private final Cancellation cancellation;
    private Ripgrep.Listing known;
    private int visited;
    private boolean truncated;

    FileTreeWalker(Path root, boolean honourGitIgnore, int maxEntries, Cancellation cancellation) {
        this.root = root;
        this.honourGitIgnore = honourGitIgnore;
        this.maxEntries = maxEntries;
        this.cancellation = cancellation;
    }

    /** Takes the entries {@code listing} names as regular files or directories without asking the file system. */
    FileTreeWalker known(Ripgrep.Listing listing) {
        this.known = listing;
        return this;
    }

    /** Whether the walk stopped at the entry bound. */
    boolean truncated() { return truncated; }

    int visited() { return visited; }

    /** Walks; files and directories below the root are visited (not the root itself). */
    void walk(Visitor visitor) throws IOException, InterruptedException {
        Deque<Frame> stack = new ArrayDeque<>();
        stack.push(new Frame(root, "", inheritedIgnores()));
        while (!stack.isEmpty()) {
            Frame frame = stack.pop();
            List<Path> children = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(frame.dir)) {
                for (Path p : ds) children.add(p);
            } catch (IOException e) {
                continue; // unreadable directory: skip it
            }
            children.sort(null);
            List<Scoped> ignores = frame.ignores;
            if (honourGitIgnore) {
                for (Path child : children) {
                    if (!child.getFileName().toString().equals(".gitignore")) continue;
                    // like git, never through a symbolic link
                    if (Files.isRegularFile(child, LinkOption.NOFOLLOW_LINKS)) {
                        ignores = new ArrayList<>(ignores);
                        ignores.add(new Scoped(GitIgnore.load(frame.dir, child), "",
                                frame.relative.isEmpty() ? 0 : frame.relative.length() + 1));
                    }
                    break;
                }
            }
            List<Frame> subdirs = new ArrayList<>();
            for (Path child : children) {
                if (Thread.currentThread().isInterrupted() || cancellation.isCancelled()) {
                    throw new InterruptedException("walk cancelled");
                }
                String name = child.getFileName().toString();
                String relative = frame.relative.isEmpty() ? name : frame.relative + "/" + name;
                Entry entry;
                if (known != null && known.files().contains(relative)) {
                    entry = new Entry(child, relative, true, false, null);
                } else if (known != null && known.directories().contains(relative)) {
                    entry = new Entry(child, relative, false, true, null);
                } else {
                    try {
                        entry = new Entry(child, relative,
                                Files.readAttributes(child, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
                    } catch (IOException e) {
                        continue;
                    }
                }
                boolean dir = entry.isDirectory();
                if (dir && name.equals(".git")) continue;
                if (honourGitIgnore && ignored(ignores, relative, dir)) continue;
                if (++visited > maxEntries) {
                    truncated = true;
                    return;
                }
                if (!visitor.visit(entry)) return;
                if (dir) subdirs.add(new Frame(child, relative, ignores));
            }
            for (int i = subdirs.size() - 1; i >= 0; i--) stack.push(subdirs.get(i));
        }
    }

    private record Frame(Path dir, String relative, List<Scoped> ignores) {}

    /**
     * One ignore file and how to turn a path relative to the walk's root into one relative to the file's
     * directory: drop the first {@code strip} characters (a directory below the root), or put {@code above} in
     * front (the path from a directory above the root down to it).
     */
    private record Scoped(GitIgnore rules, String above, int strip) {
        String relative(String fromRoot) {
            return above.isEmpty() ? fromRoot.substring(strip) : above + fromRoot;
        }
    }

    /** Deepest rules first; the first file with a matching rule decides. */
    private static boolean ignored(List<Scoped> ignores, String relative, boolean dir) {
        for (int i = ignores.size() - 1; i >= 0; i--) {
            Scoped g = ignores.get(i);
            Boolean verdict = g.rules().match(g.relative(relative), dir);
            if (verdict != null) return verdict;
        }
        return false;
    }

    /** Rules that apply above the root: from the repository top down to the root's parent, plus info/exclude. */
    private List<Scoped> inheritedIgnores() {
        List<Scoped> out = new ArrayList<>();
        if (!honourGitIgnore) return out;
        Path top = null;
        for (Path p = root.toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p.resolve(".git"))) {
                top = p;
                break;
            }
        }
        if (top == null) return out;
        Path exclude = top.resolve(".git/info/exclude");
        Path absRoot = root.toAbsolutePath();
        if (Files.isRegularFile(exclude)) out.add(above(GitIgnore.load(top, exclude), top, absRoot));
        List<Path> chain = new ArrayList<>();
        for (Path p = root.toAbsolutePath().getParent(); p != null && p.startsWith(top); p = p.getParent()) chain.add(0, p);
        for (Path dir : chain) {
            Path file = dir.resolve(".gitignore");
            if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) out.add(above(GitIgnore.load(dir, file), dir, absRoot));
        }
        return out;
    }

    private static Scoped above(GitIgnore rules, Path dir, Path absRoot) {
        String down = dir.relativize(absRoot).toString().replace('\\', '/');
        return new Scoped(rules, down.isEmpty() ? "" : down + "/", 0);
    }
}
