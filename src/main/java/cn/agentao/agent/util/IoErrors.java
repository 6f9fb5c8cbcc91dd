package cn.agentao.agent.util;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * I/O failures in words a user can act on. The JDK's messages are often just a path ({@code AccessDeniedException}
 * says "/x/.a.txt.123.tmp" and nothing else); this names what went wrong first, then where.
 */
public final class IoErrors {
    private IoErrors() {}

    /** E.g. "permission denied (/srv/app/.a.txt.tmp)", "no space left on device", "not a directory (/dev/null/x)". */
    public static String describe(IOException e) {
        String what = switch (e) {
            case AccessDeniedException a -> "permission denied";
            case NoSuchFileException n -> "no such file or directory";
            case NotDirectoryException n -> "not a directory";
            case FileAlreadyExistsException f -> "already exists";
            case DirectoryNotEmptyException d -> "directory not empty";
            case FileSystemException f when f.getReason() != null -> lowerFirst(f.getReason());
            case FileSystemException f -> "cannot access";
            default -> e.getMessage() == null ? e.getClass().getSimpleName() : lowerFirst(e.getMessage());
        };
        if (e instanceof FileSystemException f && f.getFile() != null) {
            return what + " (" + f.getFile() + (f.getOtherFile() == null ? "" : " -> " + f.getOtherFile()) + ")";
        }
        return what;
    }

    private static String lowerFirst(String s) {
        return s.isEmpty() || (s.length() > 1 && Character.isUpperCase(s.charAt(1))) ? s
                : Character.toLowerCase(s.charAt(0)) + s.substring(1);
    }
}
