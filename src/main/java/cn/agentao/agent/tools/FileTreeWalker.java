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
 * number of entries; stops on interrupt or cancellation.
 */
final class FileTreeWalker {

    /** One file or directory; {@code relative} is from the start directory, '/'-separated. */
    record Entry(Path path, String relative, BasicFileAttributes attributes) {}

    interface Visitor {
        /** Returns false to stop the walk. */
        boolean visit(Entry entry) throws IOException, InterruptedException;
    }

    private final Path root;
    private final boolean honourGitIgnore;
    private final int maxEntries;
    private final Cancellation cancellation;
    private int visited;
    private boolean truncated;

    FileTreeWalker(Path root, boolean honourGitIgnore, int maxEntries, Cancellation cancellation) {
        this.root = root;
        this.honourGitIgnore = honourGitIgnore;
        this.maxEntries = maxEntries;
        this.cancellation = cancellation;
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
            List<GitIgnore> ignores = frame.ignores;
            if (honourGitIgnore) {
                Path file = frame.dir.resolve(".gitignore");
                if (Files.isRegularFile(file)) {
                    ignores = new ArrayList<>(ignores);
                    ignores.add(GitIgnore.load(frame.dir, file));
                }
            }
            List<Path> children = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(frame.dir)) {
                for (Path p : ds) children.add(p);
            } catch (IOException e) {
                continue; // unreadable directory: skip it
            }
            children.sort(null);
            List<Frame> subdirs = new ArrayList<>();
            for (Path child : children) {
                if (Thread.currentThread().isInterrupted() || cancellation.isCancelled()) {
                    throw new InterruptedException("walk cancelled");
                }
                String name = child.getFileName().toString();
                BasicFileAttributes attrs;
                try {
                    attrs = Files.readAttributes(child, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                } catch (IOException e) {
                    continue;
                }
                boolean dir = attrs.isDirectory();
                if (dir && name.equals(".git")) continue;
                if (honourGitIgnore && ignored(ignores, child, dir)) continue;
                if (++visited > maxEntries) {
                    truncated = true;
                    return;
                }
                String relative = frame.relative.isEmpty() ? name : frame.relative + "/" + name;
                if (!visitor.visit(new Entry(child, relative, attrs))) return;
                if (dir) subdirs.add(new Frame(child, relative, ignores));
            }
            for (int i = subdirs.size() - 1; i >= 0; i--) stack.push(subdirs.get(i));
        }
    }

    private record Frame(Path dir, String relative, List<GitIgnore> ignores) {}

    /** Deepest rules first; the first file with a matching rule decides. */
    private static boolean ignored(List<GitIgnore> ignores, Path path, boolean dir) {
        for (int i = ignores.size() - 1; i >= 0; i--) {
            GitIgnore g = ignores.get(i);
            if (!path.startsWith(g.base())) continue;
            String rel = g.base().relativize(path).toString().replace('\\', '/');
            Boolean verdict = g.match(rel, dir);
            if (verdict != null) return verdict;
        }
        return false;
    }

    /** Rules that apply above the root: from the repository top down to the root's parent, plus info/exclude. */
    private List<GitIgnore> inheritedIgnores() {
        List<GitIgnore> out = new ArrayList<>();
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
        if (Files.isRegularFile(exclude)) out.add(GitIgnore.load(top, exclude));
        List<Path> chain = new ArrayList<>();
        for (Path p = root.toAbsolutePath().getParent(); p != null && p.startsWith(top); p = p.getParent()) chain.add(0, p);
        for (Path dir : chain) {
            Path file = dir.resolve(".gitignore");
            if (Files.isRegularFile(file)) out.add(GitIgnore.load(dir, file));
        }
        return out;
    }
}
