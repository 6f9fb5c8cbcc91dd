package cn.agentao.agent.core.tool;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Reading and writing text files, locally or through the client (which may hold unsaved editor buffers).
 * Paths are absolute.
 */
public interface FileAccess {

    /**
     * Reads a text file.
     *
     * @param line  1-based first line, or null for the start
     * @param limit at most this many lines, or null for all
     * @throws java.nio.file.NoSuchFileException when the file does not exist (local access)
     * @throws BinaryFileException               when the file is not text
     */
    String readText(Path path, Integer line, Integer limit) throws IOException;

    /** Creates or replaces the file (and its missing parent directories). */
    void writeText(Path path, String content) throws IOException;
}
