package cn.agentao.agent.childenv;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Blanks credentials in the agent's own {@code /proc/<pid>/environ}, which any process of the same user (a
 * command the agent runs, without a sandbox's pid namespace, simply reads {@code /proc/$PPID/environ}) can read.
 * The values are overwritten with NUL bytes in the process's memory, through {@code /proc/self/mem}, after Java
 * has taken its copy ({@link System#getenv()} is unchanged). Linux only; elsewhere, or when the kernel refuses,
 * nothing changes and the reason is logged at debug level. The agent's heap still holds the key: a process
 * allowed to ptrace the agent could read it, which only a sandbox prevents.
 */
public final class OwnEnviron {
    private static final Logger log = LoggerFactory.getLogger(OwnEnviron.class);
    private static final Path ENVIRON = Path.of("/proc/self/environ");

    private OwnEnviron() {}

    /** Overwrites the value of every variable {@code credentials} hides. Returns how many were blanked. */
    public static synchronized int hide(Credentials credentials) {
        System.getenv(); // Java's copy of the environment is taken before the original is touched
        if (!Files.isReadable(ENVIRON)) return 0;
        try {
            byte[] env = Files.readAllBytes(ENVIRON);
            long start = envStart(env.length);
            if (start <= 0) return 0;
            int blanked = 0;
            try (RandomAccessFile mem = new RandomAccessFile("/proc/self/mem", "rw")) {
                int from = 0;
                while (from < env.length) {
                    int end = indexOf(env, (byte) 0, from);
                    int eq = indexOf(env, (byte) '=', from);
                    if (eq > from && eq < end) {
                        String name = new String(env, from, eq - from, StandardCharsets.UTF_8);
                        String value = new String(env, eq + 1, end - eq - 1, StandardCharsets.UTF_8);
                        if (!value.isEmpty() && credentials.hides(name, value)
                                && overwrite(mem, start + eq + 1, Arrays.copyOfRange(env, eq + 1, end))) {
                            blanked++;
                        }
                    }
                    from = end + 1;
                }
            }
            if (blanked > 0) log.debug("blanked {} credential variables in /proc/self/environ", blanked);
            return blanked;
        } catch (IOException | RuntimeException e) {
            log.debug("cannot blank credentials in /proc/self/environ: {}", e.toString());
            return 0;
        }
    }

    /** env_start from /proc/self/stat (field 50), when env_end - env_start matches what environ showed. */
    private static long envStart(int length) throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        if (fields.length < 49) return -1; // field n is fields[n - 3]
        long start = Long.parseLong(fields[47].strip());
        long end = Long.parseLong(fields[48].strip());
        return end - start == length ? start : -1;
    }

    /** Writes NULs over {@code expected} at {@code address}, only if the memory there still holds it. */
    private static boolean overwrite(RandomAccessFile mem, long address, byte[] expected) throws IOException {
        byte[] actual = new byte[expected.length];
        mem.seek(address);
        mem.readFully(actual);
        if (!Arrays.equals(actual, expected)) return false;
        mem.seek(address);
        mem.write(new byte[expected.length]);
        return true;
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = from; i < bytes.length; i++) if (bytes[i] == b) return i;
        return bytes.length;
    }
}
