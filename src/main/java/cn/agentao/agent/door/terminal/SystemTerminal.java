package cn.agentao.agent.door.terminal;

import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.InfoCmp;

import java.io.IOException;
import java.util.List;

/**
 * Opens the process's own terminal for the chat as cheaply as JLine allows, since it is on the way to the first prompt.
 * JLine's builder loads and asks every provider it knows (FFM, JNI, Jansi, JNA, exec: the last forks {@code test -t}
 * for each stream) and forks {@code infocmp} for the terminal's capabilities; here one provider is tried at a time,
 * JNI first (direct native calls; FFM spins a method handle and a class per native function at every start, which
 * the AOT cache does not keep; exec forks {@code stty}), and the capabilities JLine ships for common terminals
 * (xterm, screen, rxvt and their 256-colour kinds) are used without asking {@code infocmp}.
 */
final class SystemTerminal {
    private static final List<String> PROVIDERS = List.of("jni", "ffm", "exec");

    private SystemTerminal() {}

    static Terminal open(String type) throws IOException {
        if (type != null && InfoCmp.getLoadedInfoCmp(type) == null) {
            String shipped = InfoCmp.getDefaultInfoCmp(type);
            if (shipped != null) InfoCmp.setLoadedInfoCmp(type, shipped);
        }
        IOException failed = new IOException("no terminal provider worked");
        for (String provider : PROVIDERS) {
            try {
                return builder().provider(provider).dumb(false).build();
            } catch (IOException | RuntimeException | LinkageError e) { // this provider cannot run here: the next one
                failed.addSuppressed(e);
            }
        }
        try {
            return builder().build(); // JLine's own choice, a dumb terminal at worst
        } catch (IOException | RuntimeException e) {
            failed.addSuppressed(e);
            throw failed;
        }
    }

    private static TerminalBuilder builder() {
        return TerminalBuilder.builder().system(true).nativeSignals(true).signalHandler(Terminal.SignalHandler.SIG_IGN);
    }
}
