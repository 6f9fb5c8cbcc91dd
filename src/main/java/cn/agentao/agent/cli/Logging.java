package cn.agentao.agent.cli;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/** Configures slf4j-simple before the first logger exists: level, and stderr or a file. Never stdout. */
final class Logging {
    private Logging() {}

    static boolean isLevel(String level) {
        return level != null && java.util.Set.of("error", "warn", "info", "debug", "trace").contains(level.toLowerCase(Locale.ROOT));
    }

    static void configure(String level, Path file) {
        if (file != null) makePrivate(file);
        String l = level == null ? "info" : level.toLowerCase(Locale.ROOT);
        // Name the provider: otherwise slf4j's ServiceLoader opens every jar on the class path (~25 ms at start).
        // slf4j-simple, with each line naming the traceparent of the request it was written for.
        System.setProperty("slf4j.provider", TraceLogProvider.class.getName());
        System.setProperty("slf4j.internal.verbosity", "WARN");
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", l);
        System.setProperty("org.slf4j.simpleLogger.logFile", file == null ? "System.err" : file.toString());
        // The time of day comes from TraceLogProvider ("HH:mm:ss.SSS [LEVEL]"): slf4j-simple's own dateTimeFormat
        // builds a SimpleDateFormat when the first logger is made, which sets up the locale data (~100 classes,
        // ~1.5 MB allocated) at every start, logged or not.
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "false");
        System.setProperty("org.slf4j.simpleLogger.showThreadName", "false");
        System.setProperty("org.slf4j.simpleLogger.showShortLogName", "true");
        System.setProperty("org.slf4j.simpleLogger.levelInBrackets", "false");
        // The MCP SDK logs whole server instructions at INFO; keep its chatter out unless asked for.
        if (!l.equals("debug") && !l.equals("trace")) System.setProperty("org.slf4j.simpleLogger.log.io.modelcontextprotocol", "warn");
        // HikariCP (the PostgreSQL store's pool) announces every start and stop at INFO.
        if (!l.equals("debug") && !l.equals("trace")) System.setProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari", "warn");
        // ... and logs a stack trace when the store cannot be reached, which the store's own error already says in a line
        if (!l.equals("debug") && !l.equals("trace")) System.setProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari.pool.HikariPool", "off");
    }

    /**
     * A log file is readable by its owner only, like the session files (it names files, commands, hosts): created
     * 0600, or, already there as a regular file, narrowed to its owner's bits. Anything else (a terminal, a pipe,
     * /dev/null) is left as it is. A file that cannot be made private is left to slf4j, which reports it.
     */
    static void makePrivate(Path file) {
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            return;
        } catch (FileAlreadyExistsException e) {
            // narrowed below
        } catch (UnsupportedOperationException | IOException e) {
            return;
        }
        try {
            if (!Files.isRegularFile(file)) return;
            Set<PosixFilePermission> p = new HashSet<>(Files.getPosixFilePermissions(file));
            if (p.removeAll(EnumSet.of(PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
                    PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE))) {
                Files.setPosixFilePermissions(file, p);
            }
        } catch (UnsupportedOperationException | IOException e) {
            // not a POSIX file system, or not ours: nothing to narrow
        }
    }
}
