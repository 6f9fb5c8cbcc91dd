package cn.agentao.agent.core.tool;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** Telling text from binary. */
public final class TextFiles {
    /** How much of a file is inspected. */
    public static final int SNIFF_BYTES = 8192;

    private TextFiles() {}

    /** True when the start of the file contains a NUL byte (as git and grep decide). */
    public static boolean looksBinary(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(SNIFF_BYTES);
            for (byte b : head) if (b == 0) return true;
            return false;
        }
    }

    public static boolean looksBinary(CharSequence text) {
        int n = Math.min(text.length(), SNIFF_BYTES);
        for (int i = 0; i < n; i++) if (text.charAt(i) == '\0') return true;
        return false;
    }
}
