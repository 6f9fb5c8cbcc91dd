package cn.agentao.agent.store;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.UUID;

/** Whole-file writes that readers (and crashes) see either entirely or not at all. */
public final class DurableFiles {
    private static final Logger log = LoggerFactory.getLogger(DurableFiles.class);

    private DurableFiles() {}

    /**
     * Writes {@code content} to a temporary file next to {@code target} and renames it over {@code target}.
     * With {@code force}, the content and then the directory entry are forced to the device as well.
     */
    public static void writeAtomically(Path target, byte[] content, boolean force) throws IOException {
        Path temp = target.resolveSibling("." + target.getFileName() + ".tmp-" + UUID.randomUUID());
        try {
            try (FileChannel channel = FileChannel.open(temp,
                    Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), SessionFiles.privateFile())) {
                writeFully(channel, ByteBuffer.wrap(content));
                if (force) channel.force(true);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temp);
        }
        if (force) forceDirectory(target.getParent());
    }

    static void writeFully(FileChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    /** Makes a rename or delete in {@code dir} durable, where the platform allows forcing a directory. */
    static void forceDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            log.debug("cannot force directory {} ({}); relying on the file system", dir, e.toString());
        }
    }
}
