package cn.agentao.agent.tools.search;

import cn.agentao.agent.util.Cancellation;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Walks a directory tree for glob and grep: depth first in name order, never following symbolic links,
 * skipping {@code .git} and (unless told otherwise) what {@code .gitignore} files ignore — those in the tree,
 * those between the repository top and the start directory, and {@code .git/info/exclude}. Bounded by a
 * number of entries; stops on interrupt or cancellation. Each entry's type costs an {@code lstat}, unless
 * {@code readdir} gave it ({@link #libc}) or a {@link Ripgrep.Listing} already says the entry is a regular file or
 * a directory (then its attributes are read only if asked for).
 */
final class FileTreeWalker {
    /** Helper threads reading directories ahead of a walk, by default: one per processor, at most four. */
    static final int HELPERS = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
    /** Entries read ahead and not yet walked at which reading ahead pauses. */
    static final int MAX_AHEAD = 20_000;

    /** One file or directory; {@code relative} is from the start directory, '/'-separated. */
    static final class Entry {
        private final Path path;
        private final String relative;
        private final boolean regularFile;
        private final boolean directory;
        private BasicFileAttributes attributes;
        /** The modification time from the listing, or {@link Libc#NO_TIME}. */
        private long modified = Libc.NO_TIME;
        /** A directory's own frame, to walk next. */
        private Frame sub;

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

        /** The last modification of the entry itself (not of a link's target) in milliseconds. */
        long modifiedMillis() throws IOException {
            return modified != Libc.NO_TIME ? modified : attributes().lastModifiedTime().toMillis();
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
    private Libc libc;
    private boolean times;
    private int threads;
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

    /**
     * Lists directories with {@code libc} when not null: each entry's type then comes with its name, with no
     * {@code lstat} (its attributes are read only if asked for).
     */
    FileTreeWalker libc(Libc libc) {
        this.libc = libc;
        return this;
    }

    /**
     * With {@link #libc}, reads each entry's modification time where its directory is listed ({@code fstatat} on the
     * open directory, ahead of the walk on a helper when {@link #parallel}), for {@link Entry#modifiedMillis}.
     */
    FileTreeWalker withTimes() {
        this.times = true;
        return this;
    }

    /** Reads directories ahead of the walk on {@code helpers} threads (0: all on the walking thread). */
    FileTreeWalker parallel(int helpers) {
        this.threads = helpers;
        return this;
    }

    /** Whether the walk stopped at the entry bound. */
    boolean truncated() { return truncated; }

    int visited() { return visited; }

    /** Walks; files and directories below the root are visited (not the root itself). */
    void walk(Visitor visitor) throws IOException, InterruptedException {
        Expansions expansions = new Expansions();
        try {
            Deque<Frame> stack = new ArrayDeque<>();
            stack.push(new Frame(root, "", inheritedIgnores()));
            while (!stack.isEmpty()) {
                Frame frame = stack.pop();
                List<Entry> entries = expansions.await(frame);
                List<Frame> subdirs = new ArrayList<>();
                for (Entry entry : entries) {
                    checkCancelled();
                    if (++visited > maxEntries) {
                        truncated = true;
                        return;
                    }
                    if (!visitor.visit(entry)) return;
                    if (entry.sub != null) subdirs.add(entry.sub);
                }
                expansions.consumed(frame);
                for (int i = subdirs.size() - 1; i >= 0; i--) stack.push(subdirs.get(i));
            }
        } finally {
            expansions.close();
        }
    }

    private void checkCancelled() throws InterruptedException {
        if (Thread.currentThread().isInterrupted() || cancellation.isCancelled()) {
            throw new InterruptedException("walk cancelled");
        }
    }

    /**
     * A directory's entries in name order, what it ignores left out; each directory among them carries its own
     * frame. Runs on the walking thread or, ahead of it, on a helper.
     */
    private List<Entry> expand(Frame frame, Expansions expansions) {
        List<Path> children = new ArrayList<>();
        List<Libc.Dirent> listed = libc == null ? null : libc.list(frame.dir, times);
        int[] types = null;
        if (listed != null) { // ASCII names: in the order of their bytes, as the JDK's paths sort
            listed.sort(Comparator.comparing(Libc.Dirent::name));
            types = new int[listed.size()];
            for (int i = 0; i < types.length; i++) {
                children.add(frame.dir.resolve(listed.get(i).name()));
                types[i] = listed.get(i).type();
            }
        } else {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(frame.dir)) {
                for (Path p : ds) children.add(p);
            } catch (IOException e) {
                return List.of(); // unreadable directory: skip it
            }
            children.sort(null);
        }
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
        List<Entry> entries = new ArrayList<>(children.size());
        List<Frame> subdirs = new ArrayList<>();
        for (int i = 0; i < children.size(); i++) {
            if ((i & 255) == 255 && expansions.stopped()) return entries;
            Path child = children.get(i);
            String name = child.getFileName().toString();
            String relative = frame.relative.isEmpty() ? name : frame.relative + "/" + name;
            Entry entry;
            if (known != null && known.files().contains(relative)) {
                entry = new Entry(child, relative, true, false, null);
            } else if (known != null && known.directories().contains(relative)) {
                entry = new Entry(child, relative, false, true, null);
            } else if (types != null && types[i] != Libc.DT_UNKNOWN) {
                entry = new Entry(child, relative, types[i] == Libc.DT_REG, types[i] == Libc.DT_DIR, null);
                entry.modified = listed.get(i).modifiedMillis();
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
            if (dir) subdirs.add(entry.sub = new Frame(child, relative, ignores));
            entries.add(entry);
        }
        expansions.schedule(subdirs);
        return entries;
    }

    /**
     * Directories being read ahead of the walk by helper threads (none unless {@link #parallel}): each directory
     * read schedules its subdirectories, first one first; the walk takes each directory's result when it gets
     * there, or reads it itself if no helper has started on it. Reading ahead pauses while
     * {@value #MAX_AHEAD} entries wait for the walk.
     */
    private final class Expansions implements AutoCloseable {
        private static final long WAIT_SLICE_MS = 20;
        private final LinkedBlockingDeque<Frame> queue = new LinkedBlockingDeque<>();
        private final AtomicInteger ahead = new AtomicInteger();
        private final List<Thread> helpers = new ArrayList<>();
        private volatile boolean stop;

        Expansions() {
            for (int t = 0; t < threads; t++) helpers.add(Thread.ofPlatform().daemon().name("walk-" + t).start(this::work));
        }

        boolean stopped() {
            return stop || cancellation.isCancelled();
        }

        void schedule(List<Frame> subdirs) {
            if (threads == 0) return;
            for (int i = subdirs.size() - 1; i >= 0; i--) queue.addFirst(subdirs.get(i));
        }

        List<Entry> await(Frame frame) throws InterruptedException {
            if (frame.claim()) {
                List<Entry> entries = expand(frame, this);
                checkCancelled();
                return entries;
            }
            synchronized (frame) {
                while (frame.entries == null && frame.failure == null) {
                    checkCancelled();
                    frame.wait(WAIT_SLICE_MS);
                }
            }
            checkCancelled();
            if (frame.failure != null) throw frame.failure;
            return frame.entries;
        }

        void consumed(Frame frame) {
            if (frame.ahead && ahead.addAndGet(-frame.entries.size()) < MAX_AHEAD) {
                synchronized (ahead) {
                    ahead.notifyAll();
                }
            }
        }

        private void work() {
            try {
                while (!stopped()) {
                    synchronized (ahead) {
                        while (ahead.get() >= MAX_AHEAD && !stopped()) ahead.wait(WAIT_SLICE_MS);
                    }
                    Frame frame = queue.pollFirst(WAIT_SLICE_MS, TimeUnit.MILLISECONDS);
                    if (frame == null || !frame.claim()) continue;
                    try {
                        List<Entry> entries = expand(frame, this);
                        ahead.addAndGet(entries.size());
                        frame.complete(entries, null);
                    } catch (RuntimeException e) {
                        frame.complete(null, e); // the walk throws it, as it would have reading the directory itself
                    }
                }
            } catch (InterruptedException e) {
                // closed
            }
        }

        @Override
        public void close() {
            stop = true;
            for (Thread t : helpers) t.interrupt();
        }
    }

    /** A directory to read: where, its path from the root, the ignore files that apply; then its entries. */
    private static final class Frame {
        final Path dir;
        final String relative;
        final List<Scoped> ignores;
        private boolean claimed;
        private List<Entry> entries;
        private RuntimeException failure;
        /** Read ahead by a helper (counted in what waits for the walk). */
        private boolean ahead;

        Frame(Path dir, String relative, List<Scoped> ignores) {
            this.dir = dir;
            this.relative = relative;
            this.ignores = ignores;
        }

        /** True for the one caller that is to read it. */
        synchronized boolean claim() {
            if (claimed) return false;
            claimed = true;
            return true;
        }

        synchronized void complete(List<Entry> result, RuntimeException error) {
            entries = result;
            failure = error;
            ahead = result != null;
            notifyAll();
        }
    }

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
