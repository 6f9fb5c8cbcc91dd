package cn.agentao.agent.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The documented sample logs under {@code sessions-store/fixtures/}. */
final class Fixtures {
    private Fixtures() {}

    static Path dir() {
        Path home = Path.of(System.getProperty("agent.home", "."));
        return home.resolve("sessions-store").resolve("fixtures");
    }

    /** Copies the named fixtures ({@code good}, {@code empty}, ...) into a store directory. */
    static void copyInto(Path storeDir, String... names) {
        try {
            Files.createDirectories(storeDir);
            for (String name : names) {
                Files.copy(dir().resolve(name + ".jsonl"), storeDir.resolve(name + ".jsonl"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
