package cn.agentao.agent.core.tool.local;

import cn.agentao.agent.core.tool.BinaryFileException;
import cn.agentao.agent.core.tool.FileAccess;
import cn.agentao.agent.core.tool.TextFiles;
import cn.agentao.agent.permission.Workspace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.InterruptedIOException;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import cn.agentao.agent.permission.Workspace;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/**
 * Files on this machine. Whole-file reads are strict UTF-8 (so an edit never rewrites a file it could not
 * decode); ranged reads stream, replace undecodable bytes and cap very long lines. Writes resolve the target
 * once (through links, as the permission engine judged it), then put a temporary file in that real directory
 * and rename it over the real name, keeping its permissions: a link swapped in at that name afterwards is
 * replaced, never followed.
 */
public final class LocalFileAccess implements FileAccess {
    /** Largest file read whole. */
    static final long MAX_WHOLE_BYTES = 16L << 20;
    /** Longest line kept by a ranged read; the rest of the line is dropped. */
    static final int MAX_LINE_CHARS = 1 << 20;
    /** Most characters returned by a ranged read. */
    static final int MAX_RANGE_CHARS = 16 << 20;

    @Override
    public String readText(Path path, Integer line, Integer limit) throws IOException {
        if (Files.isDirectory(path)) throw new IOException(path + " is a directory");
        if (!Files.exists(path)) throw new NoSuchFileException(path.toString());
        if (TextFiles.looksBinary(path)) throw new BinaryFileException(path);
        if (line == null && limit == null) return readWhole(path);
        return readRange(path, line == null ? 1 : Math.max(1, line), limit == null ? Integer.MAX_VALUE : limit);
    }

    private static String readWhole(Path path) throws IOException {
        long size = Files.size(path);
        if (size > MAX_WHOLE_BYTES) {
            throw new IOException(path + " is too large to read whole (" + size + " bytes); read a line range instead");
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            return decoder.decode(ByteBuffer.wrap(Files.readAllBytes(path))).toString();
        } catch (CharacterCodingException e) {
            throw new IOException(path + " is not UTF-8 text");
        }
    }

    private static String readRange(Path path, int first, int limit) throws IOException {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        StringBuilder out = new StringBuilder();
        try (Reader r = new BufferedReader(new InputStreamReader(Files.newInputStream(path), decoder), 1 << 16)) {
            int lineNo = 1;
            int taken = 0;
            StringBuilder current = new StringBuilder();
            boolean pending = false;
            int c;
            while (taken < limit && (c = r.read()) >= 0) {
                if (Thread.currentThread().isInterrupted()) throw new InterruptedIOException("read interrupted");
                pending = true;
                if (c == '\n') {
                    if (lineNo >= first) {
                        out.append(current).append('\n');
                        taken++;
                        if (out.length() > MAX_RANGE_CHARS) break;
                    }
                    current.setLength(0);
                    lineNo++;
                    pending = false;
                } else if (lineNo >= first && current.length() < MAX_LINE_CHARS) {
                    current.append((char) c);
                }
            }
            if (pending && taken < limit && lineNo >= first) out.append(current);
        }
        return out.toString();
    }

    @Override
    public void writeText(Path path, String content) throws IOException {
        Path target = Workspace.realPath(path).orElseThrow(
                () -> new IOException("the links of " + path + " cannot be resolved (or loop); nothing was written"));
        Path dir = target.getParent();
        if (dir == null) throw new IOException(path + " is not a file");
        Files.createDirectories(dir);
        Set<PosixFilePermission> permissions = null;
        if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)
                && Files.getFileAttributeView(target, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS) != null) {
            permissions = Files.getPosixFilePermissions(target, LinkOption.NOFOLLOW_LINKS);
        }
        // not Files.createTempFile, whose 0600 a new file would keep: created plainly, it gets the user's umask
        Path tmp = target.resolveSibling("." + target.getFileName() + "." + java.util.UUID.randomUUID() + ".tmp");
        try {
            Files.writeString(tmp, content, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            if (permissions != null) Files.setPosixFilePermissions(tmp, permissions);
            try {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException | AccessDeniedException e) {
                // e.g. a directory we may not create files in, holding a file we may write: write it in place
                Files.writeString(target, content, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
