package cn.agentao.agent.sandbox;

import cn.agentao.agent.permission.ProtectedPaths;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The secrets files of a directory tree ({@code .env}, {@code .envrc}, {@code .env.local}, … in any case:
 * {@link ProtectedPaths#isSecretName}) that a sandboxed command must not read. Kept as an index per tree, made by
 * one breadth-first walk at its first use (no depth limit, at most {@value #MAX_ENTRIES} entries, following no
 * links into directories, passing over {@code .git} and {@code node_modules}; a build directory may hold a copied
 * {@code .env}) and brought up to date before each command: every directory of the index whose modification time
 * changed is listed again (a file created, renamed or removed in it changes it), one that went is forgotten, and a
 * new directory is walked. So a {@code .env} written between two commands, at any depth, is hidden from the second.
 * A directory listed within {@link #SETTLE} of its last change is listed again next time (its clock may be coarse).
 * A file found through a link is hidden where it really is. New directories past the entry budget are not indexed
 * (see docs/permissions.md).
 */
final class SecretFiles {
    static final int MAX_ENTRIES = 200_000;
    private static final Set<String> SKIPPED = Set.of(".git", "node_modules");
    /** A directory changed this recently is not taken as settled: a second change in the same clock tick would hide. */
    private static final Duration SETTLE = Duration.ofSeconds(2);
    /** The indexes of this process, by the tree's real path (sessions on one workspace share one). */
    private static final Map<Path, SecretFiles> INDEXES = new ConcurrentHashMap<>();

    /** One directory as last listed: its modification time then (null: list it again), its secrets and subdirectories. */
    private record Listing(FileTime modified, Set<Path> secrets, List<Path> subdirectories, int entries) {}

    private final Path root;
    private final Map<Path, Listing> listings = new HashMap<>(); // guarded by this
    private int entries; // guarded by this

    private SecretFiles(Path root) { this.root = root; }

    /** The regular files to hide in {@code root} (real paths), the index brought up to date first. */
    static Set<Path> in(Path root) {
        return INDEXES.computeIfAbsent(real(root), SecretFiles::new).refresh();
    }

    private synchronized Set<Path> refresh() {
        ArrayDeque<Path> toList = new ArrayDeque<>();
        if (listings.isEmpty()) {
            toList.add(root);
        } else {
            for (Path dir : List.copyOf(listings.keySet())) {
                Listing known = listings.get(dir);
                if (known == null) continue; // forgotten with its parent meanwhile
                FileTime now = modified(dir);
                if (now == null) forget(dir);
                else if (now == UNREADABLE) keep(dir);
                else if (!now.equals(known.modified())) toList.add(dir);
            }
        }
        while (!toList.isEmpty()) { // breadth first: shallow directories are indexed before the budget runs out
            Path dir = toList.poll();
            Listing before = listings.get(dir);
            Listing now = list(dir, before == null && !dir.equals(root));
            if (now == UNLISTABLE) {
                if (before != null) keep(dir);
                continue;
            }
            if (now == null) {
                if (before != null) forget(dir);
                continue;
            }
            if (before != null) {
                entries -= before.entries();
                for (Path gone : before.subdirectories()) if (!now.subdirectories().contains(gone)) forget(gone);
            }
            listings.put(dir, now);
            entries += now.entries();
            for (Path sub : now.subdirectories()) if (!listings.containsKey(sub)) toList.add(sub);
        }
        Set<Path> all = new LinkedHashSet<>();
        for (Listing l : listings.values()) all.addAll(l.secrets());
        return all;
    }

    /**
     * Lists one directory; null if it is gone or ({@code budgeted}) would take the index past its budget,
     * {@link #UNLISTABLE} if the agent may not read it now.
     */
    private Listing list(Path dir, boolean budgeted) {
        FileTime modified = modified(dir);
        if (modified == null) return null;
        if (modified == UNREADABLE) return UNLISTABLE;
        Set<Path> secrets = new LinkedHashSet<>();
        List<Path> subdirectories = new ArrayList<>();
        int n = 0;
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path e : stream) {
                n++;
                if (budgeted && entries + n > MAX_ENTRIES) return null;
                String name = e.getFileName().toString();
                if (ProtectedPaths.isSecretName(name) && Files.isRegularFile(e)) { // a link: where it leads
                    secrets.add(real(e));
                } else if (!SKIPPED.contains(name) && Files.isDirectory(e, LinkOption.NOFOLLOW_LINKS)) {
                    subdirectories.add(e);
                }
            }
        } catch (java.nio.file.NoSuchFileException | java.nio.file.NotDirectoryException gone) {
            return null;
        } catch (IOException | DirectoryIteratorException unreadable) {
            return UNLISTABLE;
        }
        boolean settled = modified.toInstant().isBefore(Instant.now().minus(SETTLE));
        return new Listing(settled ? modified : null, secrets, subdirectories, n);
    }

    /**
     * Keeps what was found in a directory the agent may not read now (its permissions changed: a command may change
     * them back), and lists it again next time.
     */
    private void keep(Path dir) {
        Listing l = listings.get(dir);
        if (l != null) listings.put(dir, new Listing(null, l.secrets(), l.subdirectories(), l.entries()));
    }

    /** Forgets a directory and everything indexed below it; its parent is listed again next time. */
    private void forget(Path dir) {
        listings.entrySet().removeIf(e -> {
            boolean below = e.getKey().startsWith(dir);
            if (below) entries -= e.getValue().entries();
            return below;
        });
        if (dir.getParent() != null) keep(dir.getParent());
    }

    /**
     * A directory's modification time; null if it is gone or not a directory (a link to one included),
     * {@link #UNREADABLE} if it cannot be looked at now.
     */
    private static FileTime modified(Path dir) {
        try {
            BasicFileAttributes a = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return a.isDirectory() ? a.lastModifiedTime() : null;
        } catch (java.nio.file.NoSuchFileException | java.nio.file.NotDirectoryException e) {
            return null;
        } catch (IOException e) {
            return UNREADABLE;
        }
    }

    private static final FileTime UNREADABLE = FileTime.fromMillis(Long.MIN_VALUE);
    private static final Listing UNLISTABLE = new Listing(null, Set.of(), List.of(), 0);

    private static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p.toAbsolutePath().normalize();
        }
    }
}
